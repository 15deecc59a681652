import type { Redis } from 'ioredis';

/** Options of a `DistributedLock` instance. */
export interface DistributedLockOptions {
  /** Prepended to every Redis key. Default `lock:`. */
  prefix?: string;
  /**
   * Wrap each key in a Cluster hash tag (`lock:{stock:42}`), so its lock, fence, queue and
   * channel share a slot. Default true. A key that already contains `{tag}` keeps the
   * caller's tag, which is how several keys are put in one slot for an atomic multi-key lock.
   */
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
   * Waiters in one process for one key queue in the process and a release passes the lock to the
   * next of them in one round trip. After this many such handoffs in a row (or 25 ms) a waiter
   * of another process queued in Redis goes first. Default 16; 0 sends every waiter to Redis.
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
}
