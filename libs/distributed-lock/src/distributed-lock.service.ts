import { Inject, Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import {
  DISTRIBUTED_LOCK,
  DISTRIBUTED_LOCK_CONNECTIONS,
  DISTRIBUTED_LOCK_MODULE_OPTIONS,
} from './distributed-lock.constants';
import type { DistributedLockModuleOptions, LockConnections } from './distributed-lock.module';
import { listenTo, type AcquireOptions, type Lock, type LockEngine, type LockEventMap, type LockKey } from './lock';
import { loadPromClient, recordLockMetrics } from './lock-metrics';

/**
 * The lock core as a Nest provider: acquire, tryAcquire, using and current, with the module's
 * metrics and long-hold warnings attached. On application shutdown it releases the locks this
 * process holds, closes the core's subscriber, and quits the Redis connections it owns.
 */
@Injectable()
export class DistributedLockService implements OnApplicationShutdown {
  private readonly logger = new Logger('DistributedLock');
  private readonly stopObserving: Array<() => void> = [];

  constructor(
    /** The framework-free `DistributedLock` behind this service. */
    @Inject(DISTRIBUTED_LOCK) readonly locks: LockEngine,
    @Inject(DISTRIBUTED_LOCK_MODULE_OPTIONS) private readonly options: DistributedLockModuleOptions,
    @Optional() @Inject(DISTRIBUTED_LOCK_CONNECTIONS) private readonly connections?: LockConnections,
  ) {
    const metrics = options.metrics ?? loadPromClient() !== undefined;
    if (metrics) this.stopObserving.push(recordLockMetrics(locks, metrics === true ? undefined : metrics.registry));
    if (options.longHoldWarnMs !== undefined) this.stopObserving.push(this.warnOnLongHolds(options.longHoldWarnMs));
  }

  /** What a fenced `@WithLock` method does when Redis cannot be reached (the module's option). */
  get whenUnreachable(): 'throw' | 'run-unlocked' {
    return this.options.whenUnreachable ?? 'throw';
  }

  /** Waits up to `waitMs` for the lock; throws LockTimeoutError or LockUnavailableError. */
  acquire(key: LockKey, opts?: AcquireOptions): Promise<Lock> {
    return this.locks.acquire(key, opts);
  }

  /** Takes the lock if it is free right now; null when someone else holds it. */
  tryAcquire(key: LockKey, opts?: AcquireOptions): Promise<Lock | null> {
    return this.locks.tryAcquire(key, opts);
  }

  /** Runs `fn` holding the lock, renewed while it runs and released after; re-enters a lock already held. */
  using<T>(
    key: LockKey,
    opts: AcquireOptions | undefined,
    fn: (signal: AbortSignal, lock: Lock) => Promise<T>,
  ): Promise<T> {
    return this.locks.using(key, opts ?? {}, fn);
  }

  /** Lifts `key`'s fence counter to at least `fence` (after Redis lost its data; see the core). */
  advanceFence(key: string, fence: number): Promise<void> {
    return this.locks.advanceFence(key, fence);
  }

  /** The lock held by the current async call chain (the innermost, or the one on `key`). */
  current(key?: string): Lock | undefined {
    return this.locks.current(key);
  }

  /** Subscribes to a lock event of the core; returns a function that unsubscribes. */
  on<E extends keyof LockEventMap>(event: E, listener: (payload: LockEventMap[E]) => void): () => void {
    return listenTo(this.locks, { [event]: listener });
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopObserving.splice(0).forEach((stop) => stop());
    await this.locks.close();
    const owned = this.connections?.createdByFactory ?? false;
    if (this.connections && (this.options.closeClientsOnShutdown ?? owned)) await this.connections.quitAll();
  }

  private warnOnLongHolds(thresholdMs: number): () => void {
    return listenTo(this.locks, {
      released: ({ key, holdMs }) => {
        if (holdMs > thresholdMs) {
          this.logger.warn(
            `Lock ${key} was held for ${Math.round(holdMs)} ms, longer than longHoldWarnMs (${thresholdMs} ms)`,
          );
        }
      },
      lost: ({ key, holdMs }) => this.logger.warn(`Lock ${key} was lost after ${Math.round(holdMs)} ms held`),
    });
  }
}
