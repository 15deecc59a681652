import { LockLostError, type Lock } from '@app/distributed-lock';
import { LockFallback } from '../../config/app-config';
import { dependencyUnavailable } from '../errors/app.exception';
import { isRedisUnavailable } from '../errors/dependency-errors';

/** The fence of the lock the work runs under; null in DB-only mode (Redis unreachable). */
export type Fence = number | null;

/** Work under a lock: its fence, and the lock itself (undefined in DB-only mode). */
export type LockedWork<T> = (fence: Fence, lock?: Lock) => Promise<T>;

/**
 * Runs `work` through `underLock`; when the lock cannot be had because Redis is unreachable,
 * `fallback` decides: `db` runs the work with Postgres alone guarding the invariants (fence
 * null), `reject` answers 503. Work that has started is never run a second time.
 *
 * Work that ran to its end keeps its result even if the lease lapsed before the release (the
 * holder was paused, say): its writes are already committed, and Postgres accepted them only
 * because its fence was still the newest. Answering an error would report a committed order as
 * failed.
 */
export async function runWithFallback<T>(
  fallback: LockFallback,
  what: string,
  underLock: (work: LockedWork<T>) => Promise<T>,
  work: LockedWork<T>,
): Promise<T> {
  let started = false;
  let finished: { value: T } | undefined;
  const tracked = async (fence: Fence, lock?: Lock) => {
    started = true;
    const value = await work(fence, lock);
    finished = { value };
    return value;
  };
  try {
    return await underLock(tracked);
  } catch (error) {
    if (finished && error instanceof LockLostError) return finished.value;
    if (started || !isRedisUnavailable(error)) throw error;
    if (fallback === 'reject') throw Object.assign(dependencyUnavailable(`redis (${what})`), { cause: error });
  }
  return tracked(null);
}
