import type { Lock } from '../lock';
import type { LeaseRef } from './backends/lock-backend';
import type { LeaseKeeper } from './lease-keeper';

/**
 * One lock held in Redis by this process. Re-entrant holders in the same async chain share it
 * (`holders` counts them); `renewers` counts the `using` scopes that want it kept alive.
 */
export class Lease implements LeaseRef {
  /** Runs once when the lease is declared lost (used by the process's line for the key). */
  onLost?: () => void;
  readonly abort = new AbortController();
  holders = 1;
  renewers = 0;
  /** When the watchdog next renews it (if a `using` scope wants that). */
  renewAt = 0;
  released = false;
  lost = false;
  /** The extension on its way to Redis, which a release must wait for. */
  inflight?: Promise<unknown>;

  constructor(
    readonly key: string,
    readonly keys: string[],
    readonly token: string,
    readonly fence: number,
    public ttlMs: number,
    readonly acquiredAt: number,
    public validUntil: number,
  ) {}

  get active(): boolean {
    return !this.released && !this.lost;
  }

  /** Marks an operation as in flight until it settles; returns it unchanged. */
  track<T>(operation: Promise<T>): Promise<T> {
    const settled = operation.then(
      () => undefined,
      () => undefined,
    );
    this.inflight = settled;
    void settled.then(() => {
      if (this.inflight === settled) this.inflight = undefined;
    });
    return operation;
  }
}

/** What a caller holds: one holder's view of a (possibly shared, re-entered) lease. */
export class LockHandle implements Lock {
  readonly key: string;
  readonly token: string;
  readonly fence: number;
  readonly signal: AbortSignal;
  readonly acquiredAt: number;
  private releasing?: Promise<boolean>;

  constructor(
    readonly lease: Lease,
    private readonly keeper: LeaseKeeper,
  ) {
    this.key = lease.key;
    this.token = lease.token;
    this.fence = lease.fence;
    this.signal = lease.abort.signal;
    this.acquiredAt = lease.acquiredAt;
  }

  get keys(): string[] {
    return [...this.lease.keys];
  }

  get validUntil(): number {
    return this.lease.validUntil;
  }

  extend(ttlMs?: number): Promise<boolean> {
    if (this.releasing) return Promise.resolve(false);
    return this.keeper.extend(this.lease, ttlMs);
  }

  /** One holder leaves; the last one releases in Redis. True iff the lock was still ours. */
  release(): Promise<boolean> {
    this.releasing ??= this.keeper.exit(this.lease);
    return this.releasing;
  }
}
