/** A held lock (a lease on one key, or on several keys taken together). */
export interface Lock {
  /** The key as given; for a multi-key lock, the canonical keys joined with ",". */
  readonly key: string;
  /** The canonical (sorted, deduplicated) keys. */
  readonly keys: string[];
  /** The random owner token that Redis compares on release and extend. */
  readonly token: string;
  /**
   * Fencing token: strictly increases with every new holder of this key (re-entry keeps it).
   * Pass it to storage and reject writes that carry a smaller one.
   */
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
