import { DataSource, EntityManager } from 'typeorm';
import { isOutcomeUnknown } from './outcome-unknown';

const READ_BACK_ATTEMPTS = 3;

/**
 * Runs a read-back transaction after a lost reply and returns what it read. The pool may hand out
 * the very connection that just broke (the server's "terminating connection" arrives before the
 * socket closes, and the client is back in the pool by then); that one fails at once and is
 * dropped, so a read whose own answer was lost is tried again on the next connection, up to
 * READ_BACK_ATTEMPTS times. Any other failure, and the last lost one, is thrown as it is: a read
 * that could not happen is never "no row".
 */
export async function readBack<T>(db: DataSource, read: (tx: EntityManager) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(read);
    } catch (error) {
      if (attempt >= READ_BACK_ATTEMPTS || !isOutcomeUnknown(error)) throw error;
    }
  }
}
