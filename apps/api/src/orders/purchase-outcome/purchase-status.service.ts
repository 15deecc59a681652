import { Injectable } from '@nestjs/common';
import { AuthUser } from '../../auth/auth.types';
import { AppException } from '../../common/errors/app.exception';
import { ErrorCode } from '../../common/errors/error-code';
import { OrderRepository } from '../order-repository';
import { OrderRow, toOrderView } from '../order.view';
import { PendingPurchases } from './pending-purchases';
import { PurchaseStatusView } from './purchase-status.view';

// How long a buyer's question may wait for Postgres to settle a pending purchase.
const SETTLE_ON_ASK_MS = 500;

/**
 * Answers what became of a purchase: its order when there is one (Postgres is the truth), else the
 * record of a purchase answered 202, settled on the spot when Postgres can say. A buyer sees only
 * their own purchases (someone else's id is not found); an admin sees any.
 */
@Injectable()
export class PurchaseStatusService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly pending: PendingPurchases,
  ) {}

  async status(user: AuthUser, purchaseId: string): Promise<PurchaseStatusView> {
    const owner = user.role === 'admin' ? null : user.id;
    const order = await this.findOrder(purchaseId, owner);
    if (order) return created(purchaseId, order);
    const record = await this.pending.find(purchaseId, owner);
    if (!record) throw new AppException(ErrorCode.PurchaseNotFound, `no purchase ${purchaseId} is known`);
    const now = await this.pending.settleNow(record, SETTLE_ON_ASK_MS);
    if (now.state === 'REFUSED') return { purchaseId, state: 'REFUSED', code: now.code };
    if (now.state === 'CREATED') {
      const settled = await this.findOrder(purchaseId, now.userId);
      if (settled) return created(purchaseId, settled);
    }
    return { purchaseId, state: 'PENDING' };
  }

  /** The order a purchase made; for an admin (no owner) by purchase id alone. */
  private findOrder(purchaseId: string, owner: string | null): Promise<OrderRow | undefined> {
    return owner === null ? this.orders.findByPurchaseId(purchaseId) : this.orders.findByIdempotencyKey(owner, purchaseId);
  }
}

const created = (purchaseId: string, order: OrderRow): PurchaseStatusView => ({ purchaseId, state: 'CREATED', order: toOrderView(order) });
