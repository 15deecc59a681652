import { HttpException } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { dependencyUnavailable } from '../common/errors/app.exception';
import { isOutcomeUnknown } from '../database/outcome-unknown';
import { queryRows } from '../database/query-rows';
import { ORDER_COLUMNS, OrderRow } from './order.view';

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

/**
 * A pay or cancel whose database reply was lost may have committed (invariant 10: never answer
 * "failed" for what happened). Reads the order under FOR UPDATE on a fresh connection, which waits
 * for a transaction still holding its row, and returns it when the change is there; otherwise
 * the change did not happen and will not: 503 DEPENDENCY_UNAVAILABLE. Any other error (a refusal
 * of ours, an error reply of Postgres) is definite and goes on unchanged.
 */
export async function orderAfterFailure(db: DataSource, orderId: string, error: unknown, changed: (order: OrderRow) => boolean): Promise<OrderRow> {
  if (error instanceof HttpException || !isOutcomeUnknown(error)) throw error;
  const order = await readBack(db, async (tx) => (await queryRows<OrderRow>(tx, `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1 FOR UPDATE`, [orderId]))[0]);
  if (order && changed(order)) return order;
  throw Object.assign(dependencyUnavailable('the database'), { cause: error });
}
