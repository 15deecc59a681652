import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuthUser } from '../auth/auth.types';
import { orderNotFound } from '../common/errors/app.exception';
import { OrderLock } from '../common/locking/order-lock';
import { ProductLock } from '../common/locking/product-lock';
import { InventoryService } from '../inventory/inventory.service';
import { ListOrdersQuery } from './dto/list-orders.query';
import { decodeCursor, encodeCursor } from './order-cursor';
import { invalidState, notYourOrder } from './order-errors';
import { OrderPageView } from './order-page.view';
import { OrderRepository } from './order-repository';
import { OrderRow, OrderView, ORDER_COLUMNS, toOrderView } from './order.view';
import { QuotaLedger } from './quota-ledger';
import { queryRows } from '../database/query-rows';
import { withConflictRetry } from '../database/conflict-retry';

/** Reading, paying and cancelling orders; each state change is one conditional UPDATE. */
@Injectable()
export class OrdersService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(OrderRepository) private readonly orders: OrderRepository,
    private readonly orderLock: OrderLock,
    private readonly productLock: ProductLock,
    private readonly inventory: InventoryService,
    private readonly quota: QuotaLedger,
  ) {}

  /** Newest first: createdAt descending, then id descending; the cursor continues in that order. */
  async list(user: AuthUser, query: ListOrdersQuery): Promise<OrderPageView> {
    const limit = query.limit ?? 50;
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, ...values: unknown[]) => {
      let text = clause;
      for (const value of values) {
        params.push(value);
        text = text.replace('?', `$${params.length}`);
      }
      where.push(text);
    };
    if (user.role !== 'admin') add('user_id = ?', user.id);
    if (query.productId) add('product_id = ?', query.productId);
    if (query.status) add('status = ?', query.status);
    if (query.cursor) {
      const after = decodeCursor(query.cursor);
      if (after.createdUs === undefined) add('(created_at, id) < (SELECT created_at, id FROM orders WHERE id = ?)', after.id);
      else add(`(created_at, id) < (timestamptz 'epoch' + ?::bigint * interval '1 microsecond', ?::bigint)`, after.createdUs, after.id);
    }
    params.push(limit + 1);
    const rows: (OrderRow & { created_us: string })[] = await this.db.query(
      `SELECT ${ORDER_COLUMNS}, (extract(epoch FROM created_at) * 1000000)::bigint AS created_us
         FROM orders ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map(toOrderView), nextCursor: rows.length > limit ? encodeCursor({ createdUs: String(last.created_us), id: String(last.id) }) : null };
  }

  async get(user: AuthUser, orderId: string): Promise<OrderView> {
    return toOrderView(await this.visibleOrder(user, orderId));
  }

  /** Only the order's own customer pays, and only before it expires. */
  async pay(user: AuthUser, orderId: string): Promise<OrderView> {
    return this.orderLock.run(orderId, async () => {
      const order = await this.visibleOrder(user, orderId);
      if (order.user_id !== user.id) throw notYourOrder();
      const rows = await queryRows<OrderRow>(
        this.db,
        `UPDATE orders SET status = 'PAID', paid_at = now()
          WHERE id = $1 AND status = 'PENDING_PAYMENT' AND expires_at > now() RETURNING ${ORDER_COLUMNS}`,
        [orderId],
      );
      if (!rows.length) throw invalidState('pay', order.status === 'PENDING_PAYMENT' ? 'EXPIRED' : order.status);
      return toOrderView(rows[0]);
    });
  }

  /** The customer or an admin cancels a live order; its units go back on sale at once. */
  async cancel(user: AuthUser, orderId: string): Promise<OrderView> {
    return this.orderLock.run(orderId, async () => {
      const order = await this.visibleOrder(user, orderId);
      const unit = { productId: String(order.product_id), segment: order.segment };
      return this.productLock.runUnit(unit, async () => {
        // Rows in the one lock order: the order, the stock row, the quota row.
        const result = await withConflictRetry(() => this.db.transaction(async (tx) => {
          const rows = await queryRows<OrderRow>(
            tx,
            `UPDATE orders SET status = 'CANCELLED', closed_at = now()
              WHERE id = $1 AND status IN ('PENDING_PAYMENT', 'PAID') RETURNING ${ORDER_COLUMNS}`,
            [orderId],
          );
          if (!rows.length) return undefined;
          const row = rows[0];
          const stock = await this.inventory.giveBack(tx, unit, row.quantity);
          await this.quota.release(tx, row.user_id, String(row.product_id), row.quantity);
          return { row, stock };
        }));
        if (!result) throw invalidState('cancel', (await this.orders.findById(orderId))?.status ?? order.status);
        await this.inventory.afterUnitChange(unit, result.stock);
        return toOrderView(result.row);
      });
    });
  }

  private async visibleOrder(user: AuthUser, orderId: string): Promise<OrderRow> {
    const order = await this.orders.findById(orderId);
    if (!order) throw orderNotFound(orderId);
    if (user.role !== 'admin' && order.user_id !== user.id) throw notYourOrder();
    return order;
  }
}
