import { DataSource, EntityManager } from 'typeorm';
import { isOutcomeUnknown } from './outcome-unknown';

const READ_BACK_ATTEMPTS = 3;

/**
 * Runs a read-back transaction after a lost reply, or undefined when it cannot. The pool may hand
 * out the very connection that just broke (the server's "terminating connection" arrives before
 * the socket closes, and the client is back in the pool by then); that one fails at once and is
 * dropped, so a lost connection is tried again on the next one.
 */
export async function readBack<T>(db: DataSource, read: (tx: EntityManager) => Promise<T>): Promise<T | undefined> {
  for (let attempt = 1; attempt <= READ_BACK_ATTEMPTS; attempt++) {
    try {
      return await db.transaction(read);
    } catch (error) {
      if (!isOutcomeUnknown(error)) return undefined;
    }
  }
  return undefined;
}
