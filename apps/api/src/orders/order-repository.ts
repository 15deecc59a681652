import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { StockUnit } from '../stock/stock-keys';
import { ORDER_COLUMNS, OrderRow } from './order.view';

/** SQL on the orders table. */
@Injectable()
export class OrderRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async findByIdempotencyKey(userId: string, key: string): Promise<OrderRow | undefined> {
    const rows: OrderRow[] = await this.db.query(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE user_id = $1 AND idempotency_key = $2`,
      [userId, key],
    );
    return rows[0];
  }

  /**
   * Every order a purchase id names, whoever bought it (an admin's question; the id is unique per
   * buyer only), oldest first, at most `limit`: an index scan (the unique index leads with the key).
   */
  findAllByPurchaseId(purchaseId: string, limit: number): Promise<OrderRow[]> {
    return this.db.query(`SELECT ${ORDER_COLUMNS} FROM orders WHERE idempotency_key = $1 ORDER BY id LIMIT $2`, [
      purchaseId,
      limit,
    ]);
  }

  async findById(id: string, tx: EntityManager | DataSource = this.db): Promise<OrderRow | undefined> {
    const rows: OrderRow[] = await tx.query(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`, [id]);
    return rows[0];
  }

  /**
   * The stock row's figure, for the sold-out flag and the cached view after a cancel whose commit
   * reply was lost (the cancel's own UPDATE ... RETURNING never arrived).
   */
  async unitStock(unit: StockUnit): Promise<number | undefined> {
    const rows: { stock: number }[] =
      unit.segment === null
        ? await this.db.query('SELECT stock FROM products WHERE id = $1', [unit.productId])
        : await this.db.query('SELECT stock FROM product_segments WHERE product_id = $1 AND segment = $2', [
            unit.productId,
            unit.segment,
          ]);
    return rows[0]?.stock;
  }
}
