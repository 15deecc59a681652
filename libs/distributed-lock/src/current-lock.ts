import { Injectable } from '@nestjs/common';
import type { Lock } from './lock';
import { DistributedLockService } from './distributed-lock.service';

/** Thrown by `CurrentLock` when the calling code runs under no lock (or not under the one asked for). */
export class NoCurrentLockError extends Error {
  constructor(readonly key?: string) {
    super(
      key === undefined
        ? 'No distributed lock is held in this async call chain; call this from code under @WithLock or DistributedLockService.using'
        : `The lock on ${key} is not held in this async call chain`,
    );
    this.name = 'NoCurrentLockError';
  }
}

/**
 * The lock held by the current async call chain, for code running under `@WithLock` or
 * `using`: its fencing token to pass to storage writes, and its signal, aborted if the lease is lost.
 */
@Injectable()
export class CurrentLock {
  constructor(private readonly service: DistributedLockService) {}

  /** The innermost lock held, or the one on `key`; throws NoCurrentLockError when there is none. */
  get(key?: string): Lock {
    const lock = this.service.current(key);
    if (!lock) throw new NoCurrentLockError(key);
    return lock;
  }

  /** Like `get`, but undefined instead of throwing. */
  find(key?: string): Lock | undefined {
    return this.service.current(key);
  }

  /** The fencing token of the innermost lock held. */
  get fence(): number {
    return this.get().fence;
  }

  /** Aborted when the innermost lock held is lost. */
  get signal(): AbortSignal {
    return this.get().signal;
  }
}
