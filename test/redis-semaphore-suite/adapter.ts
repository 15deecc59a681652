import type Redis from 'ioredis';
import { DistributedLock } from '../../libs/distributed-lock/src/distributed-lock';
import { LockAbortedError, LockTimeoutError, LockUnavailableError } from '../../libs/distributed-lock/src/errors';
import type { Lock as HeldLock } from '../../libs/distributed-lock/src/lock';
import { Lock, LockOptions } from './lock-contract';

export * from './lock-contract';

/**
 * redis-semaphore's `Mutex` and `RedlockMutex` over our `DistributedLock`, for running their
 * suite against our library. The identifier is our owner token and `mutex:<key>` our lock
 * name, so what the suite reads from Redis is what our scripts wrote. Where the contracts differ:
 * a waiter is woken by the release instead of polling every `retryInterval`, and
 * `acquireAttemptsLimit` is not honoured; a Redis that cannot answer counts as "not acquired"
 * (their only failure), and a lease that cannot be renewed is reported lost once it has run out.
 */
abstract class OurLock extends Lock {
  protected _key = '';
  private lockKey = '';
  private locks!: DistributedLock; // set by use(), which every constructor calls
  private held?: HeldLock;

  /** The key and the engine, checked after the options as theirs are. */
  protected use(redis: Redis | Redis[], key: unknown): void {
    if (!key) throw new Error('"key" is required');
    if (typeof key !== 'string') throw new Error('"key" must be a string');
    this.lockKey = key;
    this._key = `mutex:${key}`;
    this.locks = engineFor(redis);
  }

  protected async _acquire(signal?: AbortSignal): Promise<boolean> {
    try {
      this.held = await this.locks.acquire(this.lockKey, { ...this.terms(), waitMs: this.acquireTimeout, signal });
      return true;
    } catch (error) {
      if (error instanceof LockAbortedError && signal) throw signal.reason;
      if (error instanceof LockTimeoutError || error instanceof LockUnavailableError) return false;
      throw error;
    }
  }

  /** Renews the lease; with none in hand (taken by another process), takes it over under the identifier. */
  protected async _refresh(): Promise<boolean> {
    const held = this.held;
    if (!held) {
      this.held = await this.takeOver();
      return this.held !== undefined;
    }
    try {
      if (await held.extend(this.lockTimeout)) return true;
    } catch (error) {
      if (!(error instanceof LockUnavailableError)) throw error;
      if (!held.signal.aborted) return true; // not answered, but the lease still runs
    }
    // Lost: clear what is left of it (on Redlock, the nodes that still hold it).
    this.held = undefined;
    await held.release().catch(() => false);
    return false;
  }

  protected async _release(): Promise<void> {
    const held = this.held ?? (await this.takeOver());
    this.held = undefined;
    await held?.release().catch(() => false);
  }

  private async takeOver(): Promise<HeldLock | undefined> {
    return (await this.locks.tryAcquire(this.lockKey, this.terms()).catch(() => null)) ?? undefined;
  }

  private terms() {
    return { ttlMs: this.lockTimeout, token: this.identifier, reentrant: false };
  }
}

/** One `DistributedLock` per client (or node list), as an application would hold it. */
const engines = new WeakMap<object, DistributedLock>();
function engineFor(redis: Redis | Redis[]): DistributedLock {
  let engine = engines.get(redis);
  if (!engine) engines.set(redis, (engine = new DistributedLock(redis, { prefix: 'mutex:', hashTag: false })));
  return engine;
}

export class Mutex extends OurLock {
  protected _kind = 'mutex';

  constructor(client: Redis, key: string, options?: LockOptions) {
    super(options);
    if (!client) throw new Error('"client" is required');
    this.use(client, key);
  }
}

export class RedlockMutex extends OurLock {
  protected _kind = 'redlock-mutex';

  constructor(clients: Redis[], key: string, options?: LockOptions) {
    super(options);
    if (!clients || !Array.isArray(clients)) throw new Error('"clients" array is required');
    this.use(clients, key);
  }
}
