import { HttpException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { dependencyUnavailable } from '../common/errors/app.exception';
import { isOutcomeUnknown } from '../database/outcome-unknown';
import { readBack } from '../database/read-back';

// FOR UPDATE waits for a transaction that still holds the rows (a commit on its way).
const PRODUCT_STOCK = 'SELECT stock FROM products WHERE id = $1 FOR UPDATE';
const SEGMENTED_STOCK =
  'SELECT coalesce(sum(stock), 0)::int AS stock FROM (SELECT stock FROM product_segments WHERE product_id = $1 FOR UPDATE) s';

/**
 * An admin stock change whose database reply was lost may have committed (invariant 10). Reads
 * the stock back under the product's row locks: when it shows the figure asked for, the change
 * is answered as done; otherwise it did not happen and cannot now (503, nothing was done). A
 * definite failure goes on unchanged.
 */
export async function stockSetAfterFailure(
  db: DataSource,
  productId: string,
  segmented: boolean,
  target: number,
  error: unknown,
): Promise<'ok'> {
  if (error instanceof HttpException || !isOutcomeUnknown(error)) throw error;
  const rows = await readBack(
    db,
    (tx) => tx.query(segmented ? SEGMENTED_STOCK : PRODUCT_STOCK, [productId]) as Promise<{ stock: number }[]>,
  );
  if (rows?.[0]?.stock === target) return 'ok';
  throw Object.assign(dependencyUnavailable('the database'), { cause: error });
}
