import type { LockEventMap } from '../lock';
import { LockLostError, LockUnavailableError } from '../errors';
import type { ExtendResult, LockBackend } from './backends/lock-backend';
import type { Lease } from './lease';
import { now } from './timing';

type Emit = <E extends keyof LockEventMap>(event: E, payload: LockEventMap[E]) => void;

/**
 * Keeps the leases this process holds: extension, renewal, loss, release and their events. Its
 * watchdog is one timer for every lease: it renews the leases of `using` scopes every ttl/3, in one
 * batch per tick (leases due soon join it early), and declares a lease whose validity ran out lost,
 * even when Redis does not answer. A lease carries its next renewal time, so the timer needs no
 * collection besides `held` (one set insert and delete per acquire).
 */
export class LeaseKeeper {
  private readonly held = new Set<Lease>();
  /** Leases with a renewal in flight: not renewed again until it settles. */
  private readonly renewing = new Set<Lease>();
  private timer?: NodeJS.Timeout;
  private timerAt = 0;

  constructor(
    private readonly backend: LockBackend,
    private readonly emit: Emit,
    /** Gives a lease back in Redis (possibly by handing it to a local waiter). */
    private readonly giveBack: (lease: Lease) => Promise<boolean>,
  ) {}

  open(lease: Lease): Lease {
    this.held.add(lease);
    lease.renewAt = lease.acquiredAt + lease.ttlMs / 3;
    this.reschedule();
    return lease;
  }

  /** A `using` scope starts (or stops) wanting the lease renewed by the watchdog. */
  setRenewing(lease: Lease, renewing: boolean): void {
    lease.renewers += renewing ? 1 : -1;
    this.reschedule();
  }

  async extend(lease: Lease, ttlMs = lease.ttlMs): Promise<boolean> {
    if (!lease.active) return false;
    const [result] = await this.sendExtension([lease], [ttlMs]);
    if (result.ok && result.validUntil > now()) {
      this.applyExtension(lease, ttlMs, result.validUntil);
      return true;
    }
    if ('error' in result) {
      this.emit('renewalFailed', { key: lease.key, error: result.error });
      throw new LockUnavailableError(lease.key, 'the extension did not reach Redis', result.error);
    }
    this.markLost(lease, 'the extension found it no longer ours');
    return false;
  }

  exit(lease: Lease): Promise<boolean> {
    if (lease.released) return Promise.resolve(false);
    lease.holders -= 1;
    if (lease.holders > 0) return Promise.resolve(!lease.lost);
    return this.releaseNow(lease);
  }

  markLost(lease: Lease, reason: string): void {
    if (!lease.active) return;
    lease.lost = true;
    lease.abort.abort(new LockLostError(lease.key, reason));
    try {
      lease.onLost?.();
    } finally {
      this.emit('lost', { key: lease.key, holdMs: now() - lease.acquiredAt });
    }
  }

  /** Releases every lease still held (shutdown); errors are left to the leases' expiry. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held].map((lease) => this.releaseNow(lease).catch(() => false)));
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private releaseNow(lease: Lease): Promise<boolean> {
    if (lease.released) return Promise.resolve(false);
    lease.released = true;
    const givenBack = lease.inflight ? lease.inflight.then(() => this.giveBack(lease)) : this.giveBack(lease);
    this.held.delete(lease);
    return givenBack.then(
      (wasHeld) => {
        this.emit('released', { key: lease.key, holdMs: now() - lease.acquiredAt, wasHeld });
        return wasHeld;
      },
      (error: unknown) => {
        this.emit('unavailable', { key: lease.key, error });
        throw new LockUnavailableError(lease.key, 'the release did not reach Redis (the lease will expire on its own)', error);
      },
    );
  }

  /** Extends the leases in one batch; a release waits for it (`track`). */
  private sendExtension(leases: Lease[], ttls: number[]): Promise<ExtendResult[]> {
    const failed = (error: unknown): ExtendResult[] => leases.map(() => ({ ok: false as const, error }));
    let sent: Promise<ExtendResult[]>;
    try {
      sent = this.backend.extend(leases, ttls);
    } catch (error) {
      sent = Promise.reject(error); // a backend that throws before its round trip: a failed one
    }
    const batch = sent.catch(failed);
    leases.forEach((lease) => lease.track(batch));
    return batch;
  }

  private applyExtension(lease: Lease, ttlMs: number, validUntil: number): void {
    lease.validUntil = validUntil;
    lease.ttlMs = ttlMs;
    this.reschedule();
    this.emit('extended', { key: lease.key, ttlMs });
  }

  /** Arms the timer for the next renewal or expiry; keeps an armed one that fires no later. */
  private reschedule(): void {
    let next = Number.POSITIVE_INFINITY;
    for (const lease of this.held) {
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

  /**
   * The watchdog's timer. Nothing a lease's handling throws may end it: a throw here would be an
   * uncaught exception (the process exits) and would leave the other leases unrenewed.
   */
  private tick(): void {
    this.timer = undefined;
    const at = now();
    const due: Lease[] = [];
    try {
      for (const lease of [...this.held]) {
        if (!lease.active) continue;
        if (lease.validUntil <= at) this.markLostQuietly(lease, 'its validity ran out before it was renewed');
        else if (this.wantsRenewal(lease) && lease.renewAt <= at + lease.ttlMs / 12) due.push(lease);
      }
      due.forEach((lease) => (lease.renewAt = at + lease.ttlMs / 3));
      if (due.length > 0) this.renew(due).catch((error: unknown) => warnWatchdogFault(error));
    } finally {
      this.reschedule();
    }
  }

  private async renew(leases: Lease[]): Promise<void> {
    const ttls = leases.map((lease) => lease.ttlMs);
    leases.forEach((lease) => this.renewing.add(lease));
    try {
      const results = await this.sendExtension(leases, ttls);
      results.forEach((result, i) => {
        const lease = leases[i];
        if (!lease.active) return;
        if (result.ok && result.validUntil > now()) return this.applyExtension(lease, ttls[i], result.validUntil);
        if ('error' in result) {
          this.emit('renewalFailed', { key: lease.key, error: result.error });
          // A failed round trip is retried soon, while the lease still has validity left.
          if (lease.validUntil > now()) return void (lease.renewAt = now() + Math.min(lease.ttlMs / 6, 250));
        }
        this.markLostQuietly(lease, 'a renewal found it no longer ours');
      });
    } finally {
      leases.forEach((lease) => this.renewing.delete(lease));
      this.reschedule();
    }
  }

  /** markLost for the watchdog: the lease is lost whatever its loss hook throws. */
  private markLostQuietly(lease: Lease, reason: string): void {
    try {
      this.markLost(lease, reason);
    } catch (error) {
      warnWatchdogFault(error);
    }
  }

  private wantsRenewal(lease: Lease): boolean {
    return lease.renewers > 0 && !this.renewing.has(lease);
  }
}

function warnWatchdogFault(error: unknown): void {
  process.emitWarning(`the DistributedLock watchdog met an error and goes on: ${String(error)}`, { type: 'DistributedLockWarning' });
}
