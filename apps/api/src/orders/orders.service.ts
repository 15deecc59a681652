import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuthUser } from '../auth/auth.types';
import { orderNotFound } from '../common/errors/app.exception';
import { HeldLock, WithLock, type Lock, type WithLockOptions } from '@app/distributed-lock';
import { Fence, StockUnit, stockLockKey } from '../stock/stock-keys';
import { InventoryService } from '../inventory/inventory.service';
import { ProductCatalog } from '../inventory/product-catalog.service';
import { ListOrdersQuery } from './dto/list-orders.query';
import { decodeCursor, encodeCursor } from './order-cursor';
import { invalidState, notYourOrder } from './order-errors';
import { OrderPageView } from './order-page.view';
import { OrderRepository } from './order-repository';
import { OrderRow, OrderView, ORDER_COLUMNS, toOrderView } from './order.view';
import { QuotaLedger } from './quota-ledger';
import { queryRows } from '../database/query-rows';
import { withConflictRetry } from '../database/statements';
import { orderAfterFailure } from './lost-answer';
import { OrderStatus } from './order-status';
import { reportBackgroundFailure } from '../metrics/background-failures';

// No re-entry (no AsyncLocalStorage); the statements are conditional on the rows' own state
// (and the fence for stock), so Postgres has the last word, as with LOCK_FALLBACK=db.
const LOCK_OPTIONS: WithLockOptions = { reentrant: false, fenced: true };

/** An order change, read (and its caller's rights checked) before its lock is taken. */
interface OrderChange {
  orderId: string;
  order: OrderRow;
}

interface OrderCancel extends OrderChange {
  unit: StockUnit;
  cancellable: readonly OrderStatus[];
}

const BUYER_CANCELLABLE: readonly OrderStatus[] = ['PENDING_PAYMENT'];
const ADMIN_CANCELLABLE: readonly OrderStatus[] = ['PENDING_PAYMENT', 'PAID'];

/** Reading, paying and cancelling orders; each state change is one conditional UPDATE. */
@Injectable()
export class OrdersService {
  private readonly log = new Logger(OrdersService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(OrderRepository) private readonly orders: OrderRepository,
    private readonly inventory: InventoryService,
    private readonly catalog: ProductCatalog,
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
      if (after.createdUs === undefined)
        add('(created_at, id) < (SELECT created_at, id FROM orders WHERE id = ?)', after.id);
      else
        add(
          `(created_at, id) < (timestamptz 'epoch' + ?::bigint * interval '1 microsecond', ?::bigint)`,
          after.createdUs,
          after.id,
        );
    }
    params.push(limit + 1);
    const rows: (OrderRow & { created_us: string })[] = await this.db.query(
      `SELECT ${ORDER_COLUMNS}, (extract(epoch FROM created_at) * 1000000)::bigint AS created_us
         FROM orders ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toOrderView),
      nextCursor:
        rows.length > limit ? encodeCursor({ createdUs: String(last.created_us), id: String(last.id) }) : null,
    };
  }

  async get(user: AuthUser, orderId: string): Promise<OrderView> {
    return toOrderView(await this.visibleOrder(user, orderId));
  }

  /**
   * Only the order's own customer pays, and only before it expires. Ownership is checked with a
   * plain read before the order's lock is taken: a caller who may not act on the order never
   * holds (or queues for) its lock.
   */
  async pay(user: AuthUser, orderId: string): Promise<OrderView> {
    const order = await this.visibleOrder(user, orderId);
    if (order.user_id !== user.id) throw notYourOrder();
    return this.payLocked({ orderId, order });
  }

  /** Under `order:<orderId>`: one conditional UPDATE, so the order's own row decides. */
  @WithLock('order:<orderId>', LOCK_OPTIONS)
  private async payLocked({ orderId, order }: OrderChange): Promise<OrderView> {
    let rows: OrderRow[];
    try {
      rows = await queryRows<OrderRow>(
        this.db,
        `UPDATE orders SET status = 'PAID', paid_at = now()
          WHERE id = $1 AND status = 'PENDING_PAYMENT' AND expires_at > now() RETURNING ${ORDER_COLUMNS}`,
        [orderId],
      );
    } catch (error) {
      return toOrderView(await orderAfterFailure(this.db, orderId, error, (now) => now.status === 'PAID'));
    }
    if (rows.length) return toOrderView(rows[0]);
    const status = (await this.orders.findById(orderId))?.status ?? order.status;
    throw invalidState('pay', status === 'PENDING_PAYMENT' ? 'EXPIRED' : status);
  }

  /**
   * The customer cancels a pending order; an admin cancels a pending or a PAID one (a refund).
   * Either way its units go back on sale and the customer's quota is freed at once. Ownership
   * and state are checked with a plain read before any lock (both refusals are final: the
   * states a caller may not cancel never turn back into ones they may).
   */
  async cancel(user: AuthUser, orderId: string): Promise<OrderView> {
    const order = await this.visibleOrder(user, orderId);
    const cancellable = user.role === 'admin' ? ADMIN_CANCELLABLE : BUYER_CANCELLABLE;
    if (!cancellable.includes(order.status)) throw invalidState('cancel', order.status);
    const unit = { productId: String(order.product_id), segment: order.segment };
    return this.cancelLocked({ orderId, order, unit, cancellable });
  }

  /** Under `order:<orderId>`, then the stock unit's lock: the order's units go back on sale. */
  @WithLock('order:<orderId>', LOCK_OPTIONS)
  private cancelLocked(change: OrderCancel): Promise<OrderView> {
    return this.cancelUnderStockLock(change);
  }

  @WithLock((change: OrderCancel) => stockLockKey(change.unit), LOCK_OPTIONS)
  private async cancelUnderStockLock(
    { orderId, order, unit, cancellable }: OrderCancel,
    @HeldLock() lock?: Lock,
  ): Promise<OrderView> {
    const fence = lock ? lock.fence : null;
    let result: { row: OrderRow; stock: number | undefined } | undefined;
    try {
      result = await withConflictRetry(() => this.cancelIn(orderId, cancellable, unit, fence));
    } catch (error) {
      await this.inventory.repairAfterStaleFence(unit, lock, error);
      const row = await orderAfterFailure(this.db, orderId, error, (now) => now.status === 'CANCELLED');
      // Committed, so answered so: a stock unreadable now is reported, and the flag and view lapse.
      const stock = await this.orders
        .unitStock(unit)
        .catch(
          (failure: unknown) => void reportBackgroundFailure(this.log, 'stock-bookkeeping', unit.productId, failure),
        );
      result = { row, stock };
    }
    if (!result) throw invalidState('cancel', (await this.orders.findById(orderId))?.status ?? order.status);
    if (result.stock !== undefined) await this.catalog.afterUnitChange(unit, result.stock);
    return toOrderView(result.row);
  }

  /** One transaction, rows in the one lock order: the order, the stock row, the quota row. */
  private cancelIn(
    orderId: string,
    cancellable: readonly OrderStatus[],
    unit: StockUnit,
    fence: Fence,
  ): Promise<{ row: OrderRow; stock: number } | undefined> {
    return this.db.transaction(async (tx) => {
      const rows = await queryRows<OrderRow>(
        tx,
        `UPDATE orders SET status = 'CANCELLED', closed_at = now()
          WHERE id = $1 AND status = ANY($2::varchar[]) RETURNING ${ORDER_COLUMNS}`,
        [orderId, cancellable],
      );
      if (!rows.length) return undefined;
      const row = rows[0];
      const stock = await this.inventory.giveBack(tx, unit, row.quantity, fence);
      await this.quota.release(tx, row.user_id, String(row.product_id), row.quantity);
      return { row, stock };
    });
  }

  private async visibleOrder(user: AuthUser, orderId: string): Promise<OrderRow> {
    const order = await this.orders.findById(orderId);
    if (!order) throw orderNotFound(orderId);
    if (user.role !== 'admin' && order.user_id !== user.id) throw notYourOrder();
    return order;
  }
}
