import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Fence } from '../common/locking/product-lock';
import { queryRows } from '../database/query-rows';

/**
 * The stock column's only writers. Every statement runs inside the caller's transaction; the
 * fence check sits in the same UPDATE as the stock change, so a holder whose lease was lost
 * (and whose fence is therefore older than the last writer's) cannot change stock.
 */
@Injectable()
export class StockLedger {
  async giveBack(tx: EntityManager, productId: string, quantity: number): Promise<number> {
    const rows = await queryRows<{ stock: number }>(tx, 'UPDATE products SET stock = stock + $2, updated_at = now() WHERE id = $1 RETURNING stock', [productId, quantity]);
    return rows[0].stock;
  }

  /** Admin adjustment to an absolute figure; `supplied` records the difference for conservation. */
  async setAbsolute(tx: EntityManager, productId: string, stock: number, fence: Fence): Promise<'ok' | 'stale-fence' | 'not-found'> {
    const rows = await queryRows(
      tx,
      `UPDATE products SET supplied = supplied + ($2 - stock), stock = $2,
              lock_fence = GREATEST(lock_fence, COALESCE($3::bigint, lock_fence)), updated_at = now()
        WHERE id = $1 AND ($3::bigint IS NULL OR lock_fence <= $3::bigint)
        RETURNING id`,
      [productId, stock, fence],
    );
    if (rows.length) return 'ok';
    return this.whyNot(await this.current(tx, productId), fence) === 'stale-fence' ? 'stale-fence' : 'not-found';
  }

  private async current(tx: EntityManager, productId: string): Promise<{ stock: number; lock_fence: string } | undefined> {
    const rows: { stock: number; lock_fence: string }[] = await tx.query('SELECT stock, lock_fence FROM products WHERE id = $1', [productId]);
    return rows[0];
  }

  private whyNot(row: { lock_fence: string } | undefined, fence: Fence): 'sold-out' | 'stale-fence' | 'not-found' {
    if (!row) return 'not-found';
    if (fence !== null && BigInt(row.lock_fence) > BigInt(fence)) return 'stale-fence';
    return 'sold-out';
  }
}
