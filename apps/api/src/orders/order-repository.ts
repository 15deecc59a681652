import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ORDER_COLUMNS, OrderRow } from './order.view';

/** SQL on the orders table. */
@Injectable()
export class OrderRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async findByIdempotencyKey(userId: string, key: string): Promise<OrderRow | undefined> {
    const rows: OrderRow[] = await this.db.query(`SELECT ${ORDER_COLUMNS} FROM orders WHERE user_id = $1 AND idempotency_key = $2`, [userId, key]);
    return rows[0];
  }

  async findById(id: string, tx: EntityManager | DataSource = this.db): Promise<OrderRow | undefined> {
    const rows: OrderRow[] = await tx.query(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`, [id]);
    return rows[0];
  }
}
