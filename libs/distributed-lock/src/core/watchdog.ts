import type { Lease } from './lease';
import { now } from './timing';

export type RenewalOutcome = 'renewed' | 'lost' | 'retry';

/**
 * One timer for every lease of the process. It renews the leases of `using` scopes every
 * ttl/3, in one batch per tick (leases due soon join the batch early), and declares any lease
 * whose validity has run out lost, even when Redis does not answer. It keeps no collection of
 * its own: it serves the active leases of the keeper's set, and a lease carries its next renewal
 * time (one set insert and delete per acquire, not two).
 */
export class Watchdog {
  private readonly renewing = new Set<Lease>();
  private timer?: NodeJS.Timeout;
  private timerAt = 0;

  constructor(
    private readonly leases: Iterable<Lease>,
    private readonly renew: (leases: Lease[]) => Promise<RenewalOutcome[]>,
    private readonly expire: (lease: Lease) => void,
  ) {}

  /** A lease just joined `leases` (acquired at `lease.acquiredAt`, a moment ago). */
  track(lease: Lease): void {
    lease.renewAt = lease.acquiredAt + lease.ttlMs / 3;
    this.reschedule();
  }

  /** Call after `renewers` changed. Keeps the armed timer when it fires no later than needed. */
  reschedule(): void {
    let next = Number.POSITIVE_INFINITY;
    for (const lease of this.leases) {
      if (lease.active) next = Math.min(next, lease.validUntil, this.wantsRenewal(lease) ? lease.renewAt : Number.POSITIVE_INFINITY);
    }
    if (this.timer && this.timerAt <= next) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (next === Number.POSITIVE_INFINITY) return;
    this.timerAt = next;
    this.timer = setTimeout(() => this.tick(), Math.max(0, next - now()));
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    this.timer = undefined;
    const at = now();
    const due: Lease[] = [];
    for (const lease of [...this.leases]) {
      if (!lease.active) continue;
      if (lease.validUntil <= at) this.expire(lease);
      else if (this.wantsRenewal(lease) && lease.renewAt <= at + lease.ttlMs / 12) due.push(lease);
    }
    due.forEach((lease) => (lease.renewAt = at + lease.ttlMs / 3));
    if (due.length > 0) void this.renewBatch(due);
    this.reschedule();
  }

  private async renewBatch(leases: Lease[]): Promise<void> {
    leases.forEach((lease) => this.renewing.add(lease));
    const outcomes = await this.renew(leases).finally(() => leases.forEach((lease) => this.renewing.delete(lease)));
    outcomes.forEach((outcome, i) => {
      const lease = leases[i];
      // A failed round trip is retried soon, while the lease still has validity left.
      if (lease.active && outcome === 'retry') lease.renewAt = now() + Math.min(lease.ttlMs / 6, 250);
    });
    this.reschedule();
  }

  private wantsRenewal(lease: Lease): boolean {
    return lease.renewers > 0 && !this.renewing.has(lease);
  }
}
