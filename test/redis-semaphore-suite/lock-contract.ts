import { randomUUID } from 'node:crypto';

/**
 * redis-semaphore's public lock contract (v5), written here so its test suite can run against
 * our library: the options, the identifier, `acquire` / `tryAcquire` / `release`, a refresh
 * timer and the lost-lock callback. Subclasses supply one attempt of each Redis operation
 * (`_acquire`, `_refresh`, `_release`); the suite also subclasses this directly.
 */

export class LostLockError extends Error {}
export class TimeoutError extends Error {}

export interface TimeoutOptions {
  lockTimeout?: number;
  acquireTimeout?: number;
  acquireAttemptsLimit?: number;
  retryInterval?: number;
  refreshInterval?: number;
}

export type LockLostCallback = (this: Lock, error: LostLockError) => void;

export interface LockOptions extends TimeoutOptions {
  /** Deprecated there in favour of `identifier` + `acquiredExternally`. */
  externallyAcquiredIdentifier?: string;
  identifierSuffix?: string;
  identifier?: string;
  acquiredExternally?: true;
  onLockLost?: LockLostCallback;
}

export const defaultTimeoutOptions = { lockTimeout: 10_000, acquireTimeout: 10_000, acquireAttemptsLimit: Number.POSITIVE_INFINITY, retryInterval: 10 };

/** Their default: the error escapes the refresh timer as an unhandled rejection. */
const rethrow = (error: LostLockError): never => {
  throw error;
};

export abstract class Lock {
  protected abstract _kind: string;
  protected abstract _key: string;
  protected readonly lockTimeout: number;
  protected readonly acquireTimeout: number;
  private readonly refreshEveryMs: number;
  private readonly onLockLost: LockLostCallback;
  private readonly ownIdentifier: string;
  private timer?: ReturnType<typeof setInterval>;
  private refreshing = false;
  private acquired = false;
  /** The identifier already holds the key (taken by another process): take it over by refreshing. */
  private heldElsewhere: boolean;

  protected abstract _acquire(signal?: AbortSignal): Promise<boolean>;
  protected abstract _refresh(): Promise<boolean>;
  protected abstract _release(): Promise<void>;

  constructor(options: LockOptions = defaultTimeoutOptions) {
    const { identifier, acquiredExternally, externallyAcquiredIdentifier: external } = options;
    if (identifier !== undefined && (typeof identifier !== 'string' || identifier === '')) throw new Error('identifier must be not empty random string');
    if (acquiredExternally && !identifier) throw new Error('acquiredExternally=true meanless without custom identifier');
    if (external && (identifier || acquiredExternally)) throw new Error('Invalid usage. Use custom identifier and acquiredExternally: true');
    this.lockTimeout = options.lockTimeout ?? defaultTimeoutOptions.lockTimeout;
    this.acquireTimeout = options.acquireTimeout ?? defaultTimeoutOptions.acquireTimeout;
    this.refreshEveryMs = options.refreshInterval ?? Math.round(this.lockTimeout * 0.8);
    this.onLockLost = options.onLockLost ?? rethrow;
    const suffix = options.identifierSuffix ? `-${options.identifierSuffix}` : '';
    this.ownIdentifier = identifier || external || randomUUID() + suffix;
    this.heldElsewhere = Boolean(acquiredExternally || external);
  }

  get identifier(): string {
    return this.ownIdentifier;
  }

  get isAcquired(): boolean {
    return this.acquired;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (!(await this.tryAcquire(signal))) throw new TimeoutError(`Acquire ${this._kind} ${this._key} timeout`);
  }

  /** Waits up to `acquireTimeout`, as theirs does; false when the lock did not come. */
  async tryAcquire(signal?: AbortSignal): Promise<boolean> {
    const taken = this.heldElsewhere ? await this._refresh() : await this._acquire(signal);
    if (!taken) return false;
    this.acquired = true;
    this.heldElsewhere = false;
    if (this.refreshEveryMs > 0) this.startRefresh();
    return true;
  }

  async release(): Promise<void> {
    this.stopRefresh();
    if (this.acquired || this.heldElsewhere) await this._release();
    this.acquired = false;
    this.heldElsewhere = false;
  }

  stopRefresh(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private startRefresh(): void {
    this.timer = setInterval(() => void this.refreshOnce(), this.refreshEveryMs);
    this.timer.unref();
  }

  /** One refresh at a time; a refresh that fails after a release is no loss. */
  private async refreshOnce(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      // Called through the property: the suite replaces `_refresh` on an instance.
      if ((await this._refresh()) || !this.acquired) return;
      this.acquired = false;
      this.stopRefresh();
      this.onLockLost.call(this, new LostLockError(`Lost ${this._kind} for key ${this._key}`));
    } finally {
      this.refreshing = false;
    }
  }
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
