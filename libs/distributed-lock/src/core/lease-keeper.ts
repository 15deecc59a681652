import type { LockEventMap } from '../lock';
import { LockLostError, LockUnavailableError } from '../errors';
import type { LockBackend } from './backends/lock-backend';
import { Lease } from './lease';
import type { LeaseOperations } from './lock-handle';
import { now } from './timing';
import { Watchdog, type RenewalOutcome } from './watchdog';

export type Emit = <E extends keyof LockEventMap>(event: E, payload: LockEventMap[E]) => void;

/** Keeps the leases this process holds: extension, renewal, loss, release and its events. */
export class LeaseKeeper implements LeaseOperations {
  private readonly held = new Set<Lease>();
  private readonly watchdog = new Watchdog(
    this.held,
    (leases) => this.renew(leases),
    (lease) => this.markLost(lease, 'its validity ran out before it was renewed'),
  );

  constructor(
    private readonly backend: LockBackend,
    private readonly emit: Emit,
    /** Gives a lease back in Redis (possibly by handing it to a local waiter). */
    private readonly giveBack: (lease: Lease) => Promise<boolean> = (lease) => backend.release(lease),
  ) {}

  open(lease: Lease): Lease {
    this.held.add(lease);
    this.watchdog.track(lease);
    return lease;
  }

  /** A `using` scope starts (or stops) wanting the lease renewed by the watchdog. */
  setRenewing(lease: Lease, renewing: boolean): void {
    lease.renewers += renewing ? 1 : -1;
    this.watchdog.reschedule();
  }

  async extend(lease: Lease, ttlMs = lease.ttlMs): Promise<boolean> {
    if (!lease.active) return false;
    const sent = this.backend.extend([lease], [ttlMs]).catch((error: unknown) => [{ ok: false as const, error }]);
    const [result] = await lease.track(sent);
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
    lease.onLost?.();
    this.emit('lost', { key: lease.key, holdMs: now() - lease.acquiredAt });
  }

  /** Releases every lease still held (shutdown); errors are left to the leases' expiry. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held].map((lease) => this.releaseNow(lease).catch(() => false)));
    this.watchdog.stop();
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

  private async renew(leases: Lease[]): Promise<RenewalOutcome[]> {
    const ttls = leases.map((lease) => lease.ttlMs);
    const batch = this.backend.extend(leases, ttls).catch((error: unknown) => leases.map(() => ({ ok: false as const, error })));
    leases.forEach((lease) => lease.track(batch));
    const results = await batch;
    return results.map((result, i) => {
      const lease = leases[i];
      if (!lease.active) return 'lost';
      if (result.ok && result.validUntil > now()) {
        this.applyExtension(lease, ttls[i], result.validUntil);
        return 'renewed';
      }
      if ('error' in result && lease.validUntil > now()) {
        this.emit('renewalFailed', { key: lease.key, error: result.error });
        return 'retry';
      }
      if ('error' in result) this.emit('renewalFailed', { key: lease.key, error: result.error });
      this.markLost(lease, 'a renewal found it no longer ours');
      return 'lost';
    });
  }

  private applyExtension(lease: Lease, ttlMs: number, validUntil: number): void {
    lease.validUntil = validUntil;
    lease.ttlMs = ttlMs;
    this.watchdog.reschedule();
    this.emit('extended', { key: lease.key, ttlMs });
  }
}
