import type { RedisClient } from '../lua-script';

/** One try at taking a lock (the waiting loop around it lives in `wait-for-lock.ts`). */
export interface AttemptRequest {
  /** Canonical keys. */
  keys: string[];
  token: string;
  ttlMs: number;
  fair: boolean;
  /** When > 0 and the lock is held, stay in its handoff queue for this long (single keys). */
  queueForMs: number;
  /** False only when the token cannot be in the handoff queue yet (a chain's first try). */
  mayBeQueued: boolean;
}

export type AttemptResult =
  { acquired: true; fence: number; validUntil: number } | { acquired: false; holderTtlMs: number };

export type LeaseRef = { keys: string[]; token: string };

/** The next waiter of the releasing process, as `handOver` sees it; `queueForMs`: how long its queue entry stays live if it has to queue behind another process. */
export type NextInLine = { token: string; ttlMs: number; queueForMs: number };

/** `remote`: a waiter of another process got the lock, and ours is queued behind it. */
export type HandOverResult =
  { kind: 'local'; fence: number; validUntil: number } | { kind: 'remote' } | { kind: 'notHeld' };

/** `count` fences from `first` on, reserved for holders that inherit the token. */
export type ReserveResult = { kind: 'fences'; first: number; count: number; validUntil: number } | { kind: 'notHeld' };

export type ExtendResult = { ok: true; validUntil: number } | { ok: false } | { ok: false; error: unknown };

/**
 * Where locks live: one Redis (or a Cluster), or a Redlock quorum of independent nodes.
 * Methods reject with the driver's error when Redis cannot be reached; callers classify it.
 * The optional methods are absent under Redlock, whose waiters do not queue (a handoff cannot
 * be atomic across nodes).
 */
export interface LockBackend {
  attempt(request: AttemptRequest): Promise<AttemptResult>;
  /** Leaves the handoff queue; acquired if a release handed the lock over in the meantime. */
  cancelWait?(request: AttemptRequest): Promise<AttemptResult>;
  release(lease: LeaseRef): Promise<boolean>;
  /** Passes a single-key lease to `next`, with `block` more fences (see the hand-over script). */
  handOver?(lease: LeaseRef, next: NextInLine, keepLocal: boolean, block: number): Promise<HandOverResult>;
  /** Reserves `count` fences for the next holders, who inherit the token, and a lease of at least `ttlMs` (see reserve-fence). */
  reserveFences?(lease: LeaseRef, ttlMs: number, count: number): Promise<ReserveResult>;
  /** Extends several leases, batched (one pipeline per node). */
  extend(leases: Array<LeaseRef & { fence: number }>, ttlMs: number[]): Promise<ExtendResult[]>;
  /** With `waitForReplicas`, WAITs after a handoff or acquire; false when too few acked. */
  confirmReplicated?(lease: LeaseRef, ttlMs: number, handedOver: boolean): Promise<boolean>;
  /** Lifts the key's fence counter to at least `fence` (never lowers it). */
  advanceFence(key: string, fence: number): Promise<void>;
  /** The client whose `duplicate()` becomes the shared subscriber. */
  readonly primary: RedisClient;
}
