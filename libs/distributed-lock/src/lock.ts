import type { Redis } from 'ioredis';

/** A held lock (a lease on one key, or on several keys taken together). */
export interface Lock {
  /** The key as given; for a multi-key lock, the canonical keys joined with ",". */
  readonly key: string;
  /** The canonical (sorted, deduplicated) keys. */
  readonly keys: string[];
  /** The owner token that Redis compares on release and extend (random unless given). */
  readonly token: string;
  /** Fencing token: strictly increases with every new holder of this key (re-entry keeps it); storage rejects a smaller one. */
  readonly fence: number;
  /** Aborted when the lease is lost (renewal failed, or the validity ran out). */
  readonly signal: AbortSignal;
  /** `performance.now()` when the lock was obtained. */
  readonly acquiredAt: number;
  /** `performance.now()` until which the lease is known to be valid (drift already deducted). */
  readonly validUntil: number;
  /** Pushes the lease out to `ttlMs` (default: its original TTL) from now; false if no longer ours. */
  extend(ttlMs?: number): Promise<boolean>;
  /** Releases the lock; idempotent. Resolves true iff the lock was still ours. */
  release(): Promise<boolean>;
}

/** Payloads of the events `DistributedLock` emits; all durations come from a monotonic clock. */
export interface LockEventMap {
  acquired: { key: string; waitMs: number; fence: number; reentrant: boolean };
  released: { key: string; holdMs: number; wasHeld: boolean };
  extended: { key: string; ttlMs: number };
  renewalFailed: { key: string; error: unknown };
  lost: { key: string; holdMs: number };
  timeout: { key: string; waitMs: number };
  unavailable: { key: string; error: unknown };
}

/** Options of a `DistributedLock` instance. */
export interface DistributedLockOptions {
  /** Prepended to every Redis key. Default `lock:`. */
  prefix?: string;
  /** Wrap each key in a Cluster hash tag (`lock:{stock:42}`), so its names share a slot (default true); a key's own `{tag}` stays. */
  hashTag?: boolean;
  /** Lease in ms when a call gives none. Default 5000. */
  defaultTtlMs?: number;
  /** How long `acquire` waits when a call gives no `waitMs`. Default 3000. */
  defaultWaitMs?: number;
  /** Clock-drift allowance as a fraction of the TTL (plus 2 ms). Default 0.01. */
  driftFactor?: number;
  /** After acquiring, `WAIT` for this many replicas; too few acks count as a failed acquire. */
  waitForReplicas?: { replicas: number; timeoutMs: number };
  /**
   * Waiters of one process for one key queue in the process, and a release passes the lock to the
   * next one; after this many such handoffs in a row (or 25 ms) another process's waiter goes
   * first. Default 16; 0 sends every waiter to Redis.
   */
  maxLocalHandoffs?: number;
  /** Connection for release notifications; default: `duplicate()` of the first client. */
  subscriber?: Redis;
}

/** Per-call options of `acquire`, `tryAcquire` and `using`. */
export interface AcquireOptions {
  /** Lease in ms. */
  ttlMs?: number;
  /** How long to wait for a held lock (ignored by `tryAcquire`). */
  waitMs?: number;
  /** Strict FIFO among waiters across processes (single Redis / Cluster only). */
  fair?: boolean;
  /**
   * Ends the wait when aborted: the call rejects with LockAbortedError, leaves the queue, and a
   * lock that arrives anyway is released at once.
   */
  signal?: AbortSignal;
  /**
   * `false`: neither re-enter a lock the async chain holds nor record this one in it (`current()`
   * and `CurrentLock` do not see it; `using` hands it to its callback). Recording needs
   * AsyncLocalStorage, whose promise hooks on Node 20 and 22 then tax every promise. Default `true`.
   */
  reentrant?: boolean;
  /** Owner token (default random): one holder's own, shared by its processes. A key it already holds is taken as it is. */
  token?: string;
}

/** One key, or several taken together as one multi-key lock. */
export type LockKey = string | string[];

/** What the Nest layer needs from the lock core: `DistributedLock`, or `InMemoryDistributedLock` in unit tests. */
export interface LockEngine {
  acquire(key: LockKey, opts?: AcquireOptions): Promise<Lock>;
  tryAcquire(key: LockKey, opts?: AcquireOptions): Promise<Lock | null>;
  using<T>(key: LockKey, opts: AcquireOptions, fn: (signal: AbortSignal, lock: Lock) => Promise<T>): Promise<T>;
  current(key?: string): Lock | undefined;
  advanceFence(key: string, fence: number): Promise<void>;
  close(): Promise<void>;
  on(event: string, listener: (payload: any) => void): unknown;
  off(event: string, listener: (payload: any) => void): unknown;
}

/** Subscribes to several events at once; returns a function that removes every listener. */
export function listenTo(
  source: Pick<LockEngine, 'on' | 'off'>,
  listeners: { [E in keyof LockEventMap]?: (payload: LockEventMap[E]) => void },
): () => void {
  const entries = Object.entries(listeners) as Array<[keyof LockEventMap, (payload: unknown) => void]>;
  entries.forEach(([event, listener]) => source.on(event, listener));
  return () => entries.forEach(([event, listener]) => source.off(event, listener));
}
