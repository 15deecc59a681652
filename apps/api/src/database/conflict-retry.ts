import { isTransactionConflict } from '../common/errors/dependency-errors';

/** Attempts in all, the first included; most deadlocks clear on the first retry. */
const ATTEMPTS = 3;

/**
 * Runs a transaction (or one atomic statement) again when Postgres aborted it to break a
 * deadlock (40P01) or could not serialise it (40001): nothing of it was committed, so running it
 * again is safe. After the last attempt the error goes on and the filter answers 503 LOCK_TIMEOUT
 * with Retry-After. The short random pause lets the other party finish first.
 */
export async function withConflictRetry<T>(work: () => Promise<T>, attempts = ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isTransactionConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}
