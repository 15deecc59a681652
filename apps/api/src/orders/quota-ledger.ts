import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/**
 * The per-user limit lives in Postgres: one row per (user, product) holding the live quantity,
 * raised by purchase_batch's conditional upsert and lowered here when an order is cancelled or expires.
 */
@Injectable()
export class QuotaLedger {
  async release(tx: EntityManager, userId: string, productId: string, quantity: number): Promise<void> {
    await tx.query('UPDATE user_product_quota SET quantity = quantity - $3 WHERE user_id = $1 AND product_id = $2', [
      userId,
      productId,
      quantity,
    ]);
  }

  /**
   * Releases several users' quantities of one product. The rows are locked first in user-id
   * order as Postgres sorts them (the order purchase_batch takes them in), so two transactions
   * never hold one each while waiting for the other's.
   */
  async releaseMany(tx: EntityManager, productId: string, quantities: Map<string, number>): Promise<void> {
    const users = [...quantities.keys()];
    if (users.length > 1) {
      await tx.query(
        'SELECT 1 FROM user_product_quota WHERE product_id = $1 AND user_id = ANY($2::varchar[]) ORDER BY user_id FOR UPDATE',
        [productId, users],
      );
    }
    for (const userId of users) await this.release(tx, userId, productId, quantities.get(userId)!);
  }
}
