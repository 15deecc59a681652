import type { LeaseRef } from './backends/lock-backend';

/**
 * One lock held in Redis by this process. Re-entrant holders in the same async chain share it
 * (`holders` counts them); `renewers` counts the `using` scopes that want it kept alive.
 */
export class Lease implements LeaseRef {
  /** Runs once when the lease is declared lost (used by the process's line for the key). */
  onLost?: () => void;
  /** Aborted when the lease is lost. */
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
