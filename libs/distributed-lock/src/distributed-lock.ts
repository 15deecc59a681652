import { randomFillSync } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Cluster, Redis } from 'ioredis';
import { LockAbortedError, LockLostError, LockTimeoutError, LockUnavailableError } from './errors';
import type { AcquireOptions, DistributedLockOptions, Lock, LockEventMap } from './lock';
import { checkAcquireOptions, checkClients, checkLockOptions } from './core/arguments';
import type { AttemptRequest, LockBackend } from './core/backends/lock-backend';
import { RedlockBackend } from './core/backends/redlock.backend';
import { SingleRedisBackend } from './core/backends/single-redis.backend';
import { Lease, LockHandle, type LeaseServices } from './core/lease';
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
import { Watchdog } from './core/watchdog';

const CONTEND: Turn = { kind: 'contend' };

/** A random owner token: 128 bits as 32 hex digits, from a block of entropy drawn 128 tokens at a time. */
const entropy = Buffer.alloc(16 * 128);
let drawn = entropy.length;
function ownerToken(): string {
  if (drawn === entropy.length) drawn = randomFillSync(entropy) && 0;
  drawn += 16;
  return entropy.toString('hex', drawn - 16, drawn);
}

/** A lock taken; `fromLine` when a holder of this process passed it on. */
type Taken = Acquired & { fromLine?: true };

/** One acquire call, as its steps see it; `line`: the key of this process's line it is in. */
type Call = {
  name: string;
  keys: string[];
  signal?: AbortSignal;
  waitMs: number;
  startedAt: number;
  deadline: number;
  request: AttemptRequest;
  line?: string;
};

/**
 * Redis locks with fencing tokens, a batched watchdog, re-entry within an async call chain, pub/sub
 * handoff to waiters, fair mode, multi-key locks and Redlock over 3+ nodes; emits `LockEventMap`.
 */
export class DistributedLock extends EventEmitter {
  private readonly backend: LockBackend;
  private readonly leases: LeaseServices;
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
    const naming = new LockNaming(
      options.prefix ?? 'lock:',
      options.hashTag ?? true,
      !Array.isArray(redis) && isClusterClient(redis),
    );
    const driftFactor = options.driftFactor ?? 0.01;
    this.ttlMs = options.defaultTtlMs ?? 5000;
    this.waitMs = options.defaultWaitMs ?? 3000;
    this.confirmsReplicas = options.waitForReplicas !== undefined;
    this.backend = createBackend(redis, naming, driftFactor, options);
    this.waiting = {
      backend: this.backend,
      hub: new WakeupHub(this.backend.primary, options.subscriber),
      naming,
      driftFactor,
    };
    this.local = new LocalHandoff(this.backend, options.maxLocalHandoffs ?? 16);
    const emit: LeaseServices['emit'] = (event, payload) => this.emit(event, payload);
    this.leases = {
      backend: this.backend,
      emit,
      giveBack: (lease) => this.local.release(lease),
      watchdog: new Watchdog(this.backend),
    };
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
   * Runs `fn` under the lock, renewed by the watchdog, and releases it afterwards; a lease lost
   * meanwhile throws LockLostError. `fn` runs in a scope that records the lock for re-entry and
   * `current()`, unless `reentrant: false`.
   */
  async using<T>(
    key: string | string[],
    opts: AcquireOptions,
    fn: (signal: AbortSignal, lock: Lock) => Promise<T>,
  ): Promise<T> {
    const lock = (await this.acquire(key, opts)) as LockHandle;
    lock.lease.setRenewing(true);
    try {
      const value = await (opts.reentrant === false
        ? fn(lock.signal, lock)
        : this.context.runWith(lock, () => fn(lock.signal, lock)));
      if (lock.lease.lost) throw new LockLostError(lock.key);
      return value;
    } finally {
      lock.lease.setRenewing(false);
      await lock.release().catch(() => false); // an unreachable Redis: the lease expires by itself
    }
  }

  /**
   * Lifts `key`'s fence counter to at least `fence`: after Redis lost its data (a restart without
   * persistence, a failover to a lagging replica), the storage's last fence restores monotonicity.
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
    await this.leases.watchdog.releaseAll();
    await this.waiting.hub.close();
  }

  /** Delivers to every listener even if one throws; a listener's error never reaches the lock's own work. */
  override emit<E extends keyof LockEventMap>(event: E, payload: LockEventMap[E]): boolean {
    return emitSafely(this, event, payload);
  }

  /**
   * The one path every acquire takes: re-enter a lease this chain holds; else take the lock (up
   * to `waitMs`); have replicas confirm it (`waitForReplicas`); hold it. No lock in time:
   * LockTimeoutError (`orThrow`) or null; an abort: LockAbortedError.
   */
  private async obtain(key: string | string[], opts: AcquireOptions, orThrow: boolean): Promise<LockHandle | null> {
    const call = this.begin(key, opts, orThrow);
    const reentered = opts.reentrant === false ? undefined : this.reenter(call);
    if (reentered) return reentered;
    const acquired = await this.take(call);
    if (!acquired) return this.noLock(call, orThrow);
    if (this.confirmsReplicas) await this.confirmReplicas(call, acquired);
    const handle = this.hold(call, acquired);
    if (!call.signal?.aborted) return handle;
    // The lock came as the wait was aborted: the caller no longer wants it.
    await handle.release().catch(() => false);
    throw new LockAbortedError(call.name, call.signal.reason);
  }

  private begin(key: string | string[], opts: AcquireOptions, orThrow: boolean): Call {
    checkAcquireOptions(opts);
    const name = displayKey(key);
    const { signal } = opts;
    if (signal?.aborted) throw new LockAbortedError(name, signal.reason);
    if (this.closed) throw new LockUnavailableError(name, 'the DistributedLock was closed');
    const keys = canonicalKeys(key);
    const waitMs = orThrow ? (opts.waitMs ?? this.waitMs) : 0;
    const startedAt = now();
    const request: AttemptRequest = {
      keys,
      token: opts.token ?? ownerToken(),
      ttlMs: opts.ttlMs ?? this.ttlMs,
      fair: opts.fair ?? false,
      queueForMs: 0,
      mayBeQueued: false,
    };
    // A line hands the lock on under the next chain's token: a caller's own token stays out of it.
    const line = opts.token === undefined && this.local.applies(keys, request.fair, waitMs) ? keys[0] : undefined;
    return { name, keys, signal, waitMs, startedAt, deadline: startedAt + waitMs, request, line };
  }

  /** A chain that already holds the key shares its lease (same token and fence). */
  private reenter(call: Call): LockHandle | undefined {
    const lease = this.context.leaseFor(call.name);
    if (!lease) return undefined;
    lease.holders += 1;
    this.emit('acquired', { key: call.name, waitMs: 0, fence: lease.fence, reentrant: true });
    return new LockHandle(lease);
  }

  /** In this process's line for the key (LocalHandoff), when another chain is engaged with it; then from Redis (`takeOrWait`). */
  private async take(call: Call): Promise<Taken | undefined> {
    const { request, line } = call;
    // Null (no promise, no tick) when no other chain is in the line: the uncontended path.
    const queued = line ? this.local.enter(line, request.token, request.ttlMs, call.deadline, call.signal) : null;
    const turn: Turn = queued ? await queued : CONTEND;
    if (turn.kind === 'closed') throw new LockUnavailableError(call.name, 'the DistributedLock was closed');
    if (turn.kind === 'timeout') return undefined;
    if (turn.kind === 'handedOver' && turn.validUntil > now()) {
      if (turn.token) request.token = turn.token;
      return { acquired: true, fence: turn.fence, validUntil: turn.validUntil, fromLine: true };
    }
    // A chain that waited in line may be queued in Redis, or hold a passed lock that ran out (the try re-confirms it).
    request.mayBeQueued = queued !== null;
    let acquired: Taken | undefined;
    try {
      acquired = await takeOrWait(
        this.waiting,
        request,
        call.deadline,
        turn.kind === 'queued' ? turn.since : undefined,
        call.signal,
      );
      return acquired;
    } catch (error) {
      throw this.unavailable(call.name, error);
    } finally {
      // The line moves on when this chain got nothing.
      if (!acquired && line) this.local.gaveUp(line);
    }
  }

  private noLock(call: Call, orThrow: boolean): null {
    if (call.signal?.aborted) throw new LockAbortedError(call.name, call.signal.reason);
    if (call.waitMs > 0) this.emit('timeout', { key: call.name, waitMs: now() - call.startedAt });
    if (orThrow) throw new LockTimeoutError(call.name, call.waitMs);
    return null;
  }

  private async confirmReplicas({ name, request, line }: Call, acquired: Taken): Promise<void> {
    const confirming = this.backend.confirmReplicated?.(request, request.ttlMs, acquired.handedOver === true);
    if (!confirming || (await confirming.catch(() => false))) return;
    await this.backend.release(request).catch(() => undefined);
    const error = this.unavailable(
      name,
      new LockUnavailableError(name, 'too few replicas acknowledged the lock (WAIT)'),
    );
    if (line) this.local.gaveUp(line);
    throw error;
  }

  /** The lease is opened (watchdog) and handed to the line. */
  private hold({ name, keys, request, line, signal, startedAt }: Call, acquired: Taken): LockHandle {
    const heldAt = now();
    const lease = new Lease(
      this.leases,
      name,
      keys,
      request.token,
      acquired.fence,
      request.ttlMs,
      heldAt,
      acquired.validUntil,
    );
    if (line) this.local.held(lease, !acquired.fromLine, acquired);
    if (!signal?.aborted)
      this.emit('acquired', { key: name, waitMs: heldAt - startedAt, fence: acquired.fence, reentrant: false });
    return new LockHandle(lease);
  }

  /** A driver error that means "no answer" becomes LockUnavailableError (and an event); others are bugs. */
  private unavailable(name: string, error: unknown): unknown {
    if (!(error instanceof LockUnavailableError) && !isRedisUnreachable(error)) return error;
    this.emit('unavailable', { key: name, error });
    return error instanceof LockUnavailableError
      ? error
      : new LockUnavailableError(name, 'Redis did not answer', error);
  }
}

function createBackend(
  redis: Redis | Cluster | Redis[],
  naming: LockNaming,
  driftFactor: number,
  { waitForReplicas }: DistributedLockOptions,
): LockBackend {
  if (!Array.isArray(redis)) return new SingleRedisBackend(redis, naming, { driftFactor, waitForReplicas });
  if (redis.length === 1) return new SingleRedisBackend(redis[0], naming, { driftFactor, waitForReplicas });
  if (redis.length < 3)
    throw new TypeError('Redlock needs at least 3 independent Redis nodes (or pass a single client)');
  return new RedlockBackend(redis, naming, driftFactor);
}
