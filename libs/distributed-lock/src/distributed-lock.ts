import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Cluster, Redis } from 'ioredis';
import { LockAbortedError, LockLostError, LockTimeoutError, LockUnavailableError } from './errors';
import type { AcquireOptions, DistributedLockOptions, Lock, LockEventMap } from './lock';
import { checkAcquireOptions, checkClients, checkLockOptions } from './core/arguments';
import type { AttemptRequest, LockBackend } from './core/backends/lock-backend';
import { RedlockBackend } from './core/backends/redlock.backend';
import { SingleRedisBackend } from './core/backends/single-redis.backend';
import { Lease, LockHandle } from './core/lease';
import { LeaseKeeper } from './core/lease-keeper';
import { LocalHandoff } from './core/local-handoff';
import type { Turn } from './core/local-line';
import { LockContext } from './core/lock-context';
import { canonicalKeys, displayKey, LockNaming } from './core/lock-names';
import { isClusterClient } from './core/lua-script';
import { isRedisUnreachable } from './core/redis-errors';
import { emitSafely } from './core/safe-emit';
import { now } from './core/timing';
import { takeOrWait, type Acquired, type WaitSettings } from './core/wait-for-lock';
import { WakeupHub } from './core/wakeup-hub';

const CONTEND: Turn = { kind: 'contend' };

/**
 * A random owner token: 122 random bits as 32 hex characters. randomUUID draws from a cached block
 * of entropy; a randomBytes call per token cost ~2.5 µs, a tenth of an acquire+release's client CPU.
 */
const ownerToken = (): string => randomUUID().replace(/-/g, '');

/** An acquired lock; `fromLine` when a holder of this process passed it on (maybe its token). */
type InLine = Acquired & { fromLine?: true; token?: string };

/**
 * Redis locks with fencing tokens, a batched watchdog, re-entry within an async call chain,
 * pub/sub handoff to waiters, fair mode, multi-key locks and Redlock over 3+ nodes.
 * Emits the events of `LockEventMap`.
 */
export class DistributedLock extends EventEmitter {
  private readonly backend: LockBackend;
  private readonly hub: WakeupHub;
  private readonly keeper: LeaseKeeper;
  private readonly local: LocalHandoff;
  private readonly waiting: WaitSettings;
  private readonly context = new LockContext();
  private readonly ttlMs: number;
  private readonly waitMs: number;
  private readonly confirmsReplicas: boolean;
  private closed = false;

  constructor(redis: Redis | Cluster | Redis[], options: DistributedLockOptions = {}) {
    super();
    checkClients(redis);
    checkLockOptions(options);
    const naming = new LockNaming(options.prefix ?? 'lock:', options.hashTag ?? true, !Array.isArray(redis) && isClusterClient(redis));
    const driftFactor = options.driftFactor ?? 0.01;
    this.ttlMs = options.defaultTtlMs ?? 5000;
    this.waitMs = options.defaultWaitMs ?? 3000;
    this.confirmsReplicas = options.waitForReplicas !== undefined;
    this.backend = createBackend(redis, naming, driftFactor, options);
    this.hub = new WakeupHub(this.backend.primary, options.subscriber);
    this.waiting = { backend: this.backend, hub: this.hub, naming, driftFactor };
    this.local = new LocalHandoff(this.backend, options.maxLocalHandoffs ?? 16);
    this.keeper = new LeaseKeeper(this.backend, (event, payload) => this.emit(event, payload), (lease) => this.local.release(lease));
  }

  /** Takes the lock, waiting up to `waitMs`; throws LockTimeoutError, LockAbortedError or LockUnavailableError. */
  acquire(key: string | string[], opts: AcquireOptions = {}): Promise<Lock> {
    return this.obtain(key, opts, true) as Promise<Lock>;
  }

  /** One attempt, no waiting: the lock, or null when it is held elsewhere. */
  tryAcquire(key: string | string[], opts: AcquireOptions = {}): Promise<Lock | null> {
    return this.obtain(key, opts, false);
  }

  /**
   * Runs `fn` under the lock, renewed by the watchdog, and releases it afterwards (once any
   * extension in flight has settled). `fn`'s error is rethrown; if `fn` returned but the
   * lease was lost meanwhile, LockLostError is thrown. `fn` runs in a scope that records the
   * lock for re-entry and `current()`, unless `reentrant: false`.
   */
  async using<T>(key: string | string[], opts: AcquireOptions, fn: (signal: AbortSignal, lock: Lock) => Promise<T>): Promise<T> {
    const lock = (await this.acquire(key, opts)) as LockHandle;
    this.keeper.setRenewing(lock.lease, true);
    try {
      const value = await (opts.reentrant === false ? fn(lock.signal, lock) : this.context.runWith(lock, () => fn(lock.signal, lock)));
      if (lock.lease.lost) throw new LockLostError(lock.key);
      return value;
    } finally {
      this.keeper.setRenewing(lock.lease, false);
      await lock.release().catch(() => false); // an unreachable Redis: the lease expires by itself
    }
  }

  /**
   * Lifts `key`'s fence counter to at least `fence`. Fence counters live in Redis; if Redis loses
   * its data (a restart without persistence, a failover to a replica that lagged), new fences
   * restart below the ones a storage system has already recorded, and the storage then rightly
   * refuses every new holder. The storage's last fence, fed back here, restores monotonicity.
   */
  async advanceFence(key: string, fence: number): Promise<void> {
    const [canonical] = canonicalKeys(key);
    this.local.dropReservation(canonical);
    try {
      await this.backend.advanceFence(canonical, fence);
    } catch (error) {
      if (error instanceof LockUnavailableError) throw error;
      throw new LockUnavailableError(key, 'Redis did not answer', error);
    }
  }

  /** The lock held by the current async call chain: for `key`, or the innermost one. */
  current(key?: string): Lock | undefined {
    return this.context.current(key);
  }

  /** Releases every held lock, stops the watchdog and closes the subscriber it created. */
  async close(): Promise<void> {
    this.closed = true;
    this.local.close();
    await this.keeper.releaseAll();
    await this.hub.close();
  }

  /** Delivers to every listener even if one throws; a listener's error never reaches the lock's own work. */
  override emit<E extends keyof LockEventMap>(event: E, payload: LockEventMap[E]): boolean {
    return emitSafely(this, event, payload);
  }

  /**
   * The one path every acquire takes:
   * 1. a chain that already holds the key re-enters its lease;
   * 2. a single key that another chain of this process holds or is acquiring: the request waits
   *    in this process's line for the key, where a holder may pass the lock on (see LocalHandoff);
   * 3. otherwise, or when its turn comes, one try in Redis takes the lock if it is free, or queues
   *    the request for a handoff; while the lock is busy, the request waits for it (`takeOrWait`);
   * 4. with `waitForReplicas`, replicas confirm the write;
   * 5. the lease is opened (watchdog), handed to the line, and returned.
   * No lock within `waitMs`: LockTimeoutError (`orThrow`) or null; an abort: LockAbortedError.
   */
  private async obtain(key: string | string[], opts: AcquireOptions, orThrow: boolean): Promise<LockHandle | null> {
    checkAcquireOptions(opts);
    const name = displayKey(key);
    const { signal } = opts;
    if (signal?.aborted) throw new LockAbortedError(name, signal.reason);
    if (this.closed) throw new LockUnavailableError(name, 'the DistributedLock was closed');
    const keys = canonicalKeys(key);
    const waitMs = orThrow ? (opts.waitMs ?? this.waitMs) : 0;
    const startedAt = now();

    // 1. Re-entry.
    const reentered = opts.reentrant === false ? undefined : this.context.leaseFor(name);
    if (reentered) {
      reentered.holders += 1;
      this.emit('acquired', { key: name, waitMs: 0, fence: reentered.fence, reentrant: true });
      return new LockHandle(reentered, this.keeper);
    }

    // 2. This process's line for the key; null (no promise, no tick) when no other chain is in it.
    const request: AttemptRequest = { keys, token: ownerToken(), ttlMs: opts.ttlMs ?? this.ttlMs, fair: opts.fair ?? false, queueForMs: 0, mayBeQueued: false };
    const deadline = startedAt + waitMs;
    const line = this.local.applies(keys, request.fair, waitMs) ? keys[0] : undefined;
    const queued = line ? this.local.enter(line, request.token, request.ttlMs, deadline, signal) : null;
    const turn: Turn = queued ? await queued : CONTEND;
    if (turn.kind === 'closed') throw new LockUnavailableError(name, 'the DistributedLock was closed');

    // 3. Redis, unless a local holder passed the lock on.
    let acquired: InLine | undefined;
    if (turn.kind === 'handedOver' && turn.validUntil > now()) {
      acquired = { acquired: true, fence: turn.fence, validUntil: turn.validUntil, fromLine: true, token: turn.token };
    } else if (turn.kind !== 'timeout') {
      // A chain that waited in line may have been queued in Redis meanwhile, or passed a lock
      // whose validity ran out (the try re-confirms it: the lock may still be ours).
      request.mayBeQueued = queued !== null;
      try {
        acquired = await takeOrWait(this.waiting, request, deadline, turn.kind === 'queued' ? turn.since : undefined, signal);
      } catch (error) {
        throw this.unavailable(name, error);
      } finally {
        // The line moves on when this chain got nothing.
        if (!acquired && line) this.local.gaveUp(line);
      }
    }
    if (!acquired) {
      if (signal?.aborted) throw new LockAbortedError(name, signal.reason);
      if (waitMs > 0) this.emit('timeout', { key: name, waitMs: now() - startedAt });
      if (orThrow) throw new LockTimeoutError(name, waitMs);
      return null;
    }

    // 4. Replicas.
    const owned = acquired.token ? { ...request, token: acquired.token } : request;
    const confirming = this.confirmsReplicas ? this.backend.confirmReplicated?.(owned, owned.ttlMs, acquired.handedOver === true) : undefined;
    if (confirming && !(await confirming.catch(() => false))) {
      await this.backend.release(owned).catch(() => undefined);
      const error = this.unavailable(name, new LockUnavailableError(name, 'too few replicas acknowledged the lock (WAIT)'));
      if (line) this.local.gaveUp(line);
      throw error;
    }

    // 5. The lease.
    const heldAt = now();
    const lease = this.keeper.open(new Lease(name, keys, owned.token, acquired.fence, request.ttlMs, heldAt, acquired.validUntil));
    if (line) this.local.held(lease, !acquired.fromLine);
    const handle = new LockHandle(lease, this.keeper);
    if (signal?.aborted) {
      // The lock came as the wait was aborted: the caller no longer wants it.
      await handle.release().catch(() => false);
      throw new LockAbortedError(name, signal.reason);
    }
    this.emit('acquired', { key: name, waitMs: heldAt - startedAt, fence: acquired.fence, reentrant: false });
    return handle;
  }

  /** A driver error that means "no answer" becomes LockUnavailableError (and an event); others are bugs. */
  private unavailable(name: string, error: unknown): unknown {
    if (!(error instanceof LockUnavailableError) && !isRedisUnreachable(error)) return error;
    this.emit('unavailable', { key: name, error });
    return error instanceof LockUnavailableError ? error : new LockUnavailableError(name, 'Redis did not answer', error);
  }
}

function createBackend(redis: Redis | Cluster | Redis[], naming: LockNaming, driftFactor: number, { waitForReplicas }: DistributedLockOptions): LockBackend {
  if (!Array.isArray(redis)) return new SingleRedisBackend(redis, naming, { driftFactor, waitForReplicas });
  if (redis.length === 1) return new SingleRedisBackend(redis[0], naming, { driftFactor, waitForReplicas });
  if (redis.length < 3) throw new TypeError('Redlock needs at least 3 independent Redis nodes (or pass a single client)');
  return new RedlockBackend(redis, naming, driftFactor);
}
