import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { displayKey } from '../core/lock-names';
import { LockAbortedError, LockTimeoutError } from '../errors';
import type { AcquireOptions, Lock, LockEngine } from '../lock';

/**
 * A single-process stand-in for `DistributedLock`, for unit tests that need locking semantics
 * (exclusion, reentrancy within one async chain, fences, events, timeouts) without Redis.
 * Leases never expire and nothing is shared between processes.
 */
export class InMemoryDistributedLock extends EventEmitter implements LockEngine {
  private readonly held = new Set<Lock>();
  private readonly fences = new Map<string, number>();
  private readonly context = new AsyncLocalStorage<Lock[]>();
  private wakeWaiters: Array<() => void> = [];

  constructor(private readonly defaults: { defaultTtlMs?: number; defaultWaitMs?: number } = {}) {
    super();
  }

  async acquire(key: string | string[], opts: AcquireOptions = {}): Promise<Lock> {
    const started = performance.now();
    const waitMs = opts.waitMs ?? this.defaults.defaultWaitMs ?? 5_000;
    for (;;) {
      if (opts.signal?.aborted) throw new LockAbortedError(String(key), opts.signal.reason);
      const lock = this.take(key, opts);
      if (lock) {
        this.emit('acquired', {
          key: lock.key,
          waitMs: performance.now() - started,
          fence: lock.fence,
          reentrant: false,
        });
        return lock;
      }
      const remaining = waitMs - (performance.now() - started);
      if (remaining <= 0 || !(await this.waitForRelease(remaining, opts.signal))) {
        if (opts.signal?.aborted) throw new LockAbortedError(String(key), opts.signal.reason);
        this.emit('timeout', { key: String(key), waitMs: performance.now() - started });
        throw new LockTimeoutError(String(key), waitMs);
      }
    }
  }

  async tryAcquire(key: string | string[], opts: AcquireOptions = {}): Promise<Lock | null> {
    return this.take(key, opts);
  }

  async using<T>(
    key: string | string[],
    opts: AcquireOptions,
    fn: (signal: AbortSignal, lock: Lock) => Promise<T>,
  ): Promise<T> {
    const outer = this.context.getStore() ?? [];
    const reentered = opts.reentrant === false ? undefined : outer.find((lock) => lock.key === displayKey(key));
    if (reentered) {
      this.emit('acquired', { key: reentered.key, waitMs: 0, fence: reentered.fence, reentrant: true });
      return fn(reentered.signal, reentered);
    }
    const lock = await this.acquire(key, opts);
    try {
      return await (opts.reentrant === false
        ? fn(lock.signal, lock)
        : this.context.run([...outer, lock], () => fn(lock.signal, lock)));
    } finally {
      await lock.release();
    }
  }

  current(key?: string): Lock | undefined {
    const stack = this.context.getStore() ?? [];
    return [...stack].reverse().find((lock) => key === undefined || lock.keys.includes(key) || lock.key === key);
  }

  /** Whether a key is held right now, by anyone in this process. */
  isHeld(key: string): boolean {
    return [...this.held.values()].some((lock) => lock.keys.includes(key));
  }

  async close(): Promise<void> {
    await Promise.all([...this.held.values()].map((lock) => lock.release()));
  }

  private take(key: string | string[], { ttlMs, token = randomUUID() }: AcquireOptions): Lock | null {
    const keys = [...new Set(Array.isArray(key) ? key : [key])].sort();
    const own = [...this.held].find((lock) => lock.token === token && lock.key === keys.join(','));
    if (own || keys.some((k) => this.isHeld(k))) return own ?? null;
    const fence = (this.fences.get(keys[0]) ?? 0) + 1;
    keys.forEach((k) => this.fences.set(k, Math.max(fence, this.fences.get(k) ?? 0)));
    const lock = this.newLock(keys, fence, ttlMs ?? this.defaults.defaultTtlMs ?? 30_000, token);
    this.held.add(lock);
    return lock;
  }

  async advanceFence(key: string, fence: number): Promise<void> {
    this.fences.set(key, Math.max(fence, this.fences.get(key) ?? 0));
  }

  private newLock(keys: string[], fence: number, ttlMs: number, token: string): Lock {
    const acquiredAt = performance.now();
    const controller = new AbortController();
    let validUntil = acquiredAt + ttlMs;
    const lock: Lock = {
      key: keys.join(','),
      keys,
      token,
      fence,
      signal: controller.signal,
      acquiredAt,
      get validUntil() {
        return validUntil;
      },
      extend: async (ms = ttlMs) => {
        if (!this.held.has(lock)) return false;
        validUntil = performance.now() + ms;
        this.emit('extended', { key: lock.key, ttlMs: ms });
        return true;
      },
      release: async () => {
        const wasHeld = this.held.delete(lock);
        if (wasHeld) this.emit('released', { key: lock.key, holdMs: performance.now() - acquiredAt, wasHeld });
        const waiters = this.wakeWaiters;
        this.wakeWaiters = [];
        waiters.forEach((wake) => wake());
        return wasHeld;
      },
    };
    return lock;
  }

  /** True when a lock was released; false when `timeoutMs` passed or `signal` aborted first. */
  private waitForRelease(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (released: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(released);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.wakeWaiters.push(() => done(true));
    });
  }
}
