import { LockLostError, LockUnavailableError } from '../errors';
import type { Lock, LockEventMap } from '../lock';
import type { ExtendResult, LeaseRef, LockBackend } from './backends/lock-backend';
import { now } from './timing';
import type { Watchdog } from './watchdog';

/** What every lease of one `DistributedLock` shares; `giveBack` releases it in Redis (or hands it to a local waiter). */
export interface LeaseServices {
  backend: LockBackend;
  emit<E extends keyof LockEventMap>(event: E, payload: LockEventMap[E]): void;
  giveBack(lease: Lease): Promise<boolean>;
  watchdog: Watchdog;
}

/**
 * One lock held in Redis by this process, and the one owner of its state, extension, renewal, loss
 * and release. Re-entrant holders in one async chain share it (`holders`); `renewers` counts the
 * `using` scopes that want it kept alive by the watchdog's one timer. The abort signal is made on
 * first use: most leases are released before anyone reads it.
 */
export class Lease implements LeaseRef {
  /** Runs once when the lease is declared lost (used by the process's line for the key). */
  onLost?: () => void;
  holders = 1;
  renewers = 0;
  /** Its place in the watchdog's roster; when the watchdog next renews it, and whether it is doing so. */
  slot = -1;
  renewAt: number;
  renewing = false;
  released = false;
  lost = false;
  /** The extension on its way to Redis, which a release must wait for. */
  private inflight?: Promise<unknown>;
  private controller?: AbortController;

  constructor(
    private readonly services: LeaseServices,
    readonly key: string,
    readonly keys: string[],
    readonly token: string,
    readonly fence: number,
    public ttlMs: number,
    readonly acquiredAt: number,
    public validUntil: number,
  ) {
    this.renewAt = acquiredAt + ttlMs / 3;
    services.watchdog.watch(this);
  }

  get active(): boolean {
    return !this.released && !this.lost;
  }

  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  get wantsRenewal(): boolean {
    return this.renewers > 0 && !this.renewing && this.active;
  }

  /** A `using` scope starts (or stops) wanting the lease renewed by the watchdog. */
  setRenewing(renewing: boolean): void {
    this.renewers += renewing ? 1 : -1;
    if (renewing) this.services.watchdog.due(this.renewAt);
  }

  async extend(ttlMs = this.ttlMs): Promise<boolean> {
    if (!this.active) return false;
    const [result] = await sendExtension(this.services.backend, [this], [ttlMs]);
    if (result.ok && result.validUntil > now()) {
      this.extended(ttlMs, result.validUntil);
      return true;
    }
    if ('error' in result) {
      this.services.emit('renewalFailed', { key: this.key, error: result.error });
      throw new LockUnavailableError(this.key, 'the extension did not reach Redis', result.error);
    }
    this.markLost('the extension found it no longer ours');
    return false;
  }

  /** The watchdog's renewal came back (a failed round trip is retried while validity is left). */
  renewed(result: ExtendResult, ttlMs: number): void {
    if (!this.active) return;
    if (result.ok && result.validUntil > now()) return this.extended(ttlMs, result.validUntil);
    if ('error' in result) {
      this.services.emit('renewalFailed', { key: this.key, error: result.error });
      if (this.validUntil > now())
        return void this.services.watchdog.due((this.renewAt = now() + Math.min(this.ttlMs / 6, 250)));
    }
    this.markLost('a renewal found it no longer ours');
  }

  /** One holder leaves; the last one releases in Redis. True iff the lock was still ours. */
  exit(): Promise<boolean> {
    if (this.released) return Promise.resolve(false);
    this.holders -= 1;
    if (this.holders > 0) return Promise.resolve(!this.lost);
    return this.release();
  }

  markLost(reason: string): void {
    if (!this.active) return;
    this.lost = true;
    (this.controller ??= new AbortController()).abort(new LockLostError(this.key, reason));
    try {
      this.onLost?.();
    } finally {
      this.services.emit('lost', { key: this.key, holdMs: now() - this.acquiredAt });
    }
  }

  /** Gives the lock back once any extension in flight has settled; errors are the caller's to see. */
  release(): Promise<boolean> {
    if (this.released) return Promise.resolve(false);
    this.released = true;
    this.services.watchdog.forget(this);
    const { emit, giveBack } = this.services;
    const givenBack = this.inflight ? this.inflight.then(() => giveBack(this)) : giveBack(this);
    return givenBack.then(
      (wasHeld) => {
        emit('released', { key: this.key, holdMs: now() - this.acquiredAt, wasHeld });
        return wasHeld;
      },
      (error: unknown) => {
        emit('unavailable', { key: this.key, error });
        throw new LockUnavailableError(
          this.key,
          'the release did not reach Redis (the lease will expire on its own)',
          error,
        );
      },
    );
  }

  /** Marks an extension as in flight until it settles, so that a release waits for it. */
  track(extension: Promise<unknown>): void {
    this.inflight = extension;
    void extension.then(() => {
      if (this.inflight === extension) this.inflight = undefined;
    });
  }

  private extended(ttlMs: number, validUntil: number): void {
    this.validUntil = validUntil;
    this.ttlMs = ttlMs;
    this.services.watchdog.due(validUntil);
    this.services.emit('extended', { key: this.key, ttlMs });
  }
}

/** Extends leases in one batch; a release waits for it. A backend that throws counts as failed. */
export function sendExtension(backend: LockBackend, leases: Lease[], ttls: number[]): Promise<ExtendResult[]> {
  const batch = new Promise<ExtendResult[]>((resolve) => resolve(backend.extend(leases, ttls))).catch(
    (error: unknown) => leases.map(() => ({ ok: false as const, error })),
  );
  leases.forEach((lease) => lease.track(batch));
  return batch;
}

/** What a caller holds: one holder's view of a (possibly shared, re-entered) lease. */
export class LockHandle implements Lock {
  readonly key: string;
  readonly token: string;
  readonly fence: number;
  readonly acquiredAt: number;
  private releasing?: Promise<boolean>;

  constructor(readonly lease: Lease) {
    ({ key: this.key, token: this.token, fence: this.fence, acquiredAt: this.acquiredAt } = lease);
  }

  get keys(): string[] {
    return [...this.lease.keys];
  }
  get signal(): AbortSignal {
    return this.lease.signal;
  }
  get validUntil(): number {
    return this.lease.validUntil;
  }

  extend(ttlMs?: number): Promise<boolean> {
    return this.releasing ? Promise.resolve(false) : this.lease.extend(ttlMs);
  }

  release(): Promise<boolean> {
    return (this.releasing ??= this.lease.exit());
  }
}
