import { HttpException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { dependencyUnavailable } from '../common/errors/app.exception';
import { isOutcomeUnknown } from '../database/outcome-unknown';
import { queryRows } from '../database/query-rows';
import { readBack } from '../database/read-back';
import { ORDER_COLUMNS, OrderRow } from './order.view';

/**
 * A pay or cancel whose database reply was lost may have committed (invariant 10: never answer
 * "failed" for what happened). Reads the order under FOR UPDATE on a fresh connection, which waits
 * for a transaction still holding its row, and returns it when the change is there; otherwise
 * the change did not happen and will not: 503 DEPENDENCY_UNAVAILABLE. Any other error (a refusal
 * of ours, an error reply of Postgres) is definite and goes on unchanged.
 */
export async function orderAfterFailure(
  db: DataSource,
  orderId: string,
  error: unknown,
  changed: (order: OrderRow) => boolean,
): Promise<OrderRow> {
  if (error instanceof HttpException || !isOutcomeUnknown(error)) throw error;
  const order = await readBack(
    db,
    async (tx) =>
      (await queryRows<OrderRow>(tx, `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1 FOR UPDATE`, [orderId]))[0],
  );
  if (order && changed(order)) return order;
  throw Object.assign(dependencyUnavailable('the database'), { cause: error });
}
