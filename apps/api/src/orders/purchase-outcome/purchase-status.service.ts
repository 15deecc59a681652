import { Injectable } from '@nestjs/common';
import { AuthUser } from '../../auth/auth.types';
import { AppException } from '../../common/errors/app.exception';
import { ErrorCode } from '../../common/errors/error-code';
import { OrderRepository } from '../order-repository';
import { OrderRow, toOrderView } from '../order.view';
import { PendingPurchases, PendingRecord } from './pending-purchases';
import { PurchaseMatchView, PurchaseOutcomeView, PurchaseStatusView } from './purchase-status.view';

// How long a buyer's question may wait for Postgres to settle a pending purchase.
const SETTLE_ON_ASK_MS = 500;
// The buyers of one purchase id an admin is shown at most (ids are unique per buyer only).
export const MAX_MATCHES = 100;

/**
 * Answers what became of a purchase: its order when there is one (Postgres is the truth), else the
 * record of a purchase answered 202, settled on the spot when Postgres can say. A purchase id is
 * unique per buyer only, so every question names the buyer: a user asks about their own (someone
 * else's id is not found); an admin names one (`userId`), or is shown every buyer's purchase with
 * that id. Each is an index lookup (the orders' unique index leads with the id).
 */
@Injectable()
export class PurchaseStatusService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly pending: PendingPurchases,
  ) {}

  async status(user: AuthUser, purchaseId: string, namedUser?: string): Promise<PurchaseStatusView> {
    if (user.role !== 'admin' && namedUser !== undefined && namedUser !== user.id) {
      throw new AppException(ErrorCode.Forbidden, "only an admin may ask about another user's purchase");
    }
    const buyer = user.role === 'admin' ? namedUser : user.id;
    if (buyer === undefined) return this.everyBuyer(purchaseId);
    const answer = await this.ofBuyer(purchaseId, buyer);
    if (!answer) throw notFound(purchaseId);
    return answer;
  }

  /** One buyer's purchase, or undefined when that buyer has none with this id. */
  private async ofBuyer(purchaseId: string, userId: string): Promise<PurchaseOutcomeView | undefined> {
    const order = await this.orders.findByIdempotencyKey(userId, purchaseId);
    if (order) return created(purchaseId, order);
    const record = await this.pending.find(purchaseId, userId);
    return record && this.settled(purchaseId, record);
  }

  /** Every buyer's purchase with this id: those with an order, oldest first, then those still pending. */
  private async everyBuyer(purchaseId: string): Promise<PurchaseStatusView> {
    const [orders, records] = await Promise.all([
      this.orders.findAllByPurchaseId(purchaseId, MAX_MATCHES),
      this.pending.findAll(purchaseId),
    ]);
    const matches: PurchaseMatchView[] = orders.map((order) => ({
      userId: order.user_id,
      ...created(purchaseId, order),
    }));
    const withOrder = new Set(matches.map((m) => m.userId));
    for (const record of records.filter((r) => !withOrder.has(r.userId)).slice(0, MAX_MATCHES - matches.length)) {
      matches.push({ userId: record.userId, ...(await this.settled(purchaseId, record)) });
    }
    if (!matches.length) throw notFound(purchaseId);
    const { userId: _first, ...first } = matches[0];
    return { ...first, matches };
  }

  /** A purchase answered 202, settled now if Postgres can say within SETTLE_ON_ASK_MS. */
  private async settled(purchaseId: string, record: PendingRecord): Promise<PurchaseOutcomeView> {
    const now = await this.pending.settleNow(record, SETTLE_ON_ASK_MS);
    if (now.state === 'REFUSED') return { purchaseId, state: 'REFUSED', code: now.code };
    if (now.state === 'CREATED') {
      const order = await this.orders.findByIdempotencyKey(now.userId, purchaseId);
      if (order) return created(purchaseId, order);
    }
    return { purchaseId, state: 'PENDING' };
  }
}

const created = (purchaseId: string, order: OrderRow): PurchaseOutcomeView => ({
  purchaseId,
  state: 'CREATED',
  order: toOrderView(order),
});
const notFound = (purchaseId: string) =>
  new AppException(ErrorCode.PurchaseNotFound, `no purchase ${purchaseId} is known`);
