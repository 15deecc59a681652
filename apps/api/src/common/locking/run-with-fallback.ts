import { LockFallback } from '../../config/app-config';
import { dependencyUnavailable } from '../errors/app.exception';
import { isRedisUnavailable } from '../errors/dependency-errors';

/** The fence of the lock the work runs under; null in DB-only mode (Redis unreachable). */
export type Fence = number | null;

/**
 * Runs `work` through `underLock`; when the lock cannot be had because Redis is unreachable,
 * `fallback` decides: `db` runs the work with Postgres alone guarding the invariants (fence
 * null), `reject` answers 503. Work that has started is never run a second time.
 */
export async function runWithFallback<T>(
  fallback: LockFallback,
  what: string,
  underLock: (work: (fence: Fence) => Promise<T>) => Promise<T>,
  work: (fence: Fence) => Promise<T>,
): Promise<T> {
  let started = false;
  const tracked = (fence: Fence) => {
    started = true;
    return work(fence);
  };
  try {
    return await underLock(tracked);
  } catch (error) {
    if (started || !isRedisUnavailable(error)) throw error;
    if (fallback === 'reject') throw dependencyUnavailable(`redis (${what})`);
    return tracked(null);
  }
}
