import type { LockBackend } from './backends/lock-backend';
import { sendExtension, type Lease } from './lease';
import { Roster } from './roster';
import { warn } from './safe-emit';
import { now } from './timing';

/**
 * The one timer of a `DistributedLock` for all its leases: renews those of `using` scopes every
 * ttl/3, all due ones in one batch (those due soon join early), and declares a lease whose validity
 * ran out lost, even when Redis does not answer. It stays armed for the earliest time any lease
 * needs it, so taking and releasing a lease costs a roster insert and delete, no timer.
 */
export class Watchdog {
  private readonly held = new Roster<Lease>();
  private timer?: NodeJS.Timeout;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly backend: LockBackend) {}

  watch(lease: Lease): void {
    this.held.add(lease);
    this.due(lease.validUntil);
  }

  forget(lease: Lease): void {
    this.held.delete(lease);
  }

  /** Some lease needs the timer at `at`: keeps an armed one that fires no later. */
  due(at: number): void {
    if (at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.tick(), Math.max(0, at - now()));
    this.timer.unref();
  }

  /** Shutdown: every lease still held is released (errors are left to the leases' expiry). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.items].map((lease) => lease.release().catch(() => false)));
    clearTimeout(this.timer);
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  /**
   * Nothing a lease's handling throws may end the timer: a throw here would be an uncaught
   * exception (the process exits) and would leave the other leases unrenewed.
   */
  private tick(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const at = now();
    const due: Lease[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const lease of [...this.held.items]) {
      if (!lease.active) continue;
      if (lease.validUntil <= at) guard(() => lease.markLost('its validity ran out before it was renewed'));
      else if (lease.wantsRenewal && lease.renewAt <= at + lease.ttlMs / 12) due.push(lease);
      else next = Math.min(next, lease.validUntil, lease.wantsRenewal ? lease.renewAt : next);
    }
    if (next < Number.POSITIVE_INFINITY) this.due(next);
    if (due.length > 0) guard(() => this.renew(due, at));
  }

  private renew(leases: Lease[], at: number): void {
    const ttls = leases.map((lease) => lease.ttlMs);
    for (const lease of leases) {
      lease.renewAt = at + lease.ttlMs / 3;
      lease.renewing = true;
      this.due(lease.validUntil);
    }
    // The batch never rejects (a failure is a result), and each lease's handling is guarded.
    void sendExtension(this.backend, leases, ttls).then((results) =>
      results.forEach((result, i) => {
        leases[i].renewing = false;
        guard(() => leases[i].renewed(result, ttls[i]));
        if (leases[i].wantsRenewal) this.due(leases[i].renewAt);
      }),
    );
  }
}

function guard(run: () => void): void {
  try {
    run();
  } catch (error) {
    warn('the DistributedLock watchdog met an error and goes on', error);
  }
}
