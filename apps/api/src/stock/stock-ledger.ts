import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Fence, StockUnit } from './stock-keys';
import { queryRows } from '../database/query-rows';
import { StaleFenceException } from '../common/errors/stale-fence.error';

export type SetOutcome = 'ok' | 'stale-fence' | 'not-found';

/**
 * Writes to stock outside purchase_batch. Every statement runs inside the caller's transaction;
 * fence checks sit in the same UPDATE as the stock change, so a holder whose lease was lost (and
 * whose fence is therefore older than the last writer's) cannot change stock.
 */
@Injectable()
export class StockLedger {
  /**
   * Returns units to the row they came from; answers that row's stock. Fenced like every stock
   * write: the row takes the units only if its lock_fence <= our fence, and keeps the greater of
   * the two. A newer holder's fence on the row throws StaleFenceException, which fails the
   * caller's transaction, so the order's state change is undone with it. A null fence (DB-only
   * mode, Redis unreachable) writes unchecked; Postgres' row lock orders the writers then.
   */
  async giveBack(tx: EntityManager, unit: StockUnit, quantity: number, fence: Fence): Promise<number> {
    const rows =
      unit.segment === null
        ? await queryRows<{ stock: number }>(
            tx,
            `UPDATE products SET stock = stock + $2, lock_fence = GREATEST(lock_fence, COALESCE($3::bigint, lock_fence)), updated_at = now()
              WHERE id = $1 AND ($3::bigint IS NULL OR lock_fence <= $3::bigint) RETURNING stock`,
            [unit.productId, quantity, fence],
          )
        : await queryRows<{ stock: number }>(
            tx,
            `UPDATE product_segments SET stock = stock + $3, lock_fence = GREATEST(lock_fence, COALESCE($4::bigint, lock_fence))
              WHERE product_id = $1 AND segment = $2 AND ($4::bigint IS NULL OR lock_fence <= $4::bigint) RETURNING stock`,
            [unit.productId, unit.segment, quantity, fence],
          );
    // The row exists (an order points at it): no row updated means its fence is newer than ours.
    if (!rows.length) throw new StaleFenceException(unit.productId);
    return rows[0].stock;
  }

  /** Admin adjustment to an absolute figure; `supplied` records the difference for conservation. */
  async setAbsolute(tx: EntityManager, productId: string, stock: number, fence: Fence): Promise<SetOutcome> {
    const rows = await queryRows(
      tx,
      `UPDATE products SET supplied = supplied + ($2 - stock), stock = $2,
              lock_fence = GREATEST(lock_fence, COALESCE($3::bigint, lock_fence)), updated_at = now()
        WHERE id = $1 AND ($3::bigint IS NULL OR lock_fence <= $3::bigint)
        RETURNING id`,
      [productId, stock, fence],
    );
    if (rows.length) return 'ok';
    const exists = await tx.query('SELECT 1 FROM products WHERE id = $1', [productId]);
    return exists.length ? 'stale-fence' : 'not-found';
  }

  /** The same for a segmented product, under all its segment locks: the units are spread evenly. */
  async setSegmented(
    tx: EntityManager,
    productId: string,
    stock: number,
    segments: number,
    fence: Fence,
  ): Promise<SetOutcome> {
    const currentTotal = await this.segmentedTotal(tx, productId);
    const updated = await queryRows(
      tx,
      `UPDATE product_segments SET stock = $2::int / $3::int + CASE WHEN segment < $2::int % $3::int THEN 1 ELSE 0 END,
              lock_fence = GREATEST(lock_fence, COALESCE($4::bigint, lock_fence))
        WHERE product_id = $1 AND ($4::bigint IS NULL OR lock_fence <= $4::bigint)
        RETURNING segment`,
      [productId, stock, segments, fence],
    );
    if (updated.length !== segments) {
      // All segments or none: a partial write would break conservation, so undo by failing the transaction.
      throw new StaleSegmentsError();
    }
    await tx.query('UPDATE products SET supplied = supplied + ($2::int - $3::int), updated_at = now() WHERE id = $1', [
      productId,
      stock,
      currentTotal,
    ]);
    return 'ok';
  }

  /** A segmented product's units in all its segments. */
  async segmentedTotal(
    runner: { query(sql: string, params?: unknown[]): Promise<unknown> },
    productId: string,
  ): Promise<number> {
    const rows = (await runner.query(
      'SELECT COALESCE(SUM(stock), 0)::int AS total FROM product_segments WHERE product_id = $1',
      [productId],
    )) as { total: number }[];
    return rows[0].total;
  }
}

export class StaleSegmentsError extends Error {
  constructor() {
    super('a segment carries a newer fence than ours');
  }
}
