import type { Lock } from '../lock';
import type { Lease } from './lease';

export interface LeaseOperations {
  extend(lease: Lease, ttlMs?: number): Promise<boolean>;
  /** One holder leaves; the last one releases in Redis. True iff the lock was still ours. */
  exit(lease: Lease): Promise<boolean>;
}

/** What a caller holds: one holder's view of a (possibly shared, re-entered) lease. */
export class LockHandle implements Lock {
  private releasing?: Promise<boolean>;

  constructor(
    readonly lease: Lease,
    private readonly operations: LeaseOperations,
  ) {}

  get key(): string {
    return this.lease.key;
  }

  get keys(): string[] {
    return [...this.lease.keys];
  }

  get token(): string {
    return this.lease.token;
  }

  get fence(): number {
    return this.lease.fence;
  }

  get signal(): AbortSignal {
    return this.lease.abort.signal;
  }

  get acquiredAt(): number {
    return this.lease.acquiredAt;
  }

  get validUntil(): number {
    return this.lease.validUntil;
  }

  extend(ttlMs?: number): Promise<boolean> {
    if (this.releasing) return Promise.resolve(false);
    return this.operations.extend(this.lease, ttlMs);
  }

  release(): Promise<boolean> {
    this.releasing ??= this.operations.exit(this.lease);
    return this.releasing;
  }
}
