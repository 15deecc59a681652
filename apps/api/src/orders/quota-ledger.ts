import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/**
 * The per-user limit lives in Postgres: one row per (user, product) holding the live quantity,
 * raised by purchase_batch's conditional upsert and lowered here when an order is cancelled or expires.
 */
@Injectable()
export class QuotaLedger {
  async release(tx: EntityManager, userId: string, productId: string, quantity: number): Promise<void> {
    await tx.query('UPDATE user_product_quota SET quantity = quantity - $3 WHERE user_id = $1 AND product_id = $2', [userId, productId, quantity]);
  }
}
