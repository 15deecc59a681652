import type { OrderRepository } from '../order-repository';
import type { OrderRow } from '../order.view';
import type { PendingPurchases, PendingRecord } from './pending-purchases';
import { PurchaseStatusService } from './purchase-status.service';

const order = (id: string, userId: string): OrderRow =>
  ({
    id,
    product_id: '1',
    user_id: userId,
    quantity: 1,
    status: 'PENDING_PAYMENT',
    idempotency_key: 'k',
    created_at: new Date(0),
    expires_at: new Date(0),
  }) as unknown as OrderRow;
const record = (userId: string, state: PendingRecord['state']): PendingRecord => ({
  userId,
  purchaseId: 'k',
  productId: '1',
  quantity: 1,
  attemptId: 'a',
  state,
  ...(state === 'REFUSED' ? { code: 'DEPENDENCY_UNAVAILABLE' } : {}),
});

/** The service over an orders table and pending records the test lays out. */
function service(orders: OrderRow[], records: PendingRecord[]) {
  const repository = {
    findByIdempotencyKey: async (userId: string) => orders.find((o) => o.user_id === userId),
    findAllByPurchaseId: async () => orders,
  } as unknown as OrderRepository;
  const pending = {
    find: async (_id: string, userId: string) => records.find((r) => r.userId === userId),
    findAll: async () => records,
    settleNow: async (r: PendingRecord) => r,
  } as unknown as PendingPurchases;
  return new PurchaseStatusService(repository, pending);
}

const admin = { id: 'ops', role: 'admin' as const };

describe('PurchaseStatusService for an admin naming no buyer', () => {
  it("lists every buyer's purchase with the id: orders oldest first, then purchases only pending, each buyer once", async () => {
    const status = await service(
      [order('7', 'alice'), order('9', 'bob')],
      [record('alice', 'CREATED'), record('dave', 'PENDING'), record('erin', 'REFUSED')],
    ).status(admin, 'k');
    expect(status.matches?.map((m) => [m.userId, m.state, m.order?.id, m.code])).toEqual([
      ['alice', 'CREATED', '7', undefined],
      ['bob', 'CREATED', '9', undefined],
      ['dave', 'PENDING', undefined, undefined],
      ['erin', 'REFUSED', undefined, 'DEPENDENCY_UNAVAILABLE'],
    ]);
    expect(status).toMatchObject({ purchaseId: 'k', state: 'CREATED', order: { id: '7' } });
    expect(status).not.toHaveProperty('userId');
  });

  it('answers 404 when no buyer used the id', async () => {
    await expect(service([], []).status(admin, 'k')).rejects.toMatchObject({ code: 'PURCHASE_NOT_FOUND' });
  });

  it("answers a named buyer's purchase alone, without matches", async () => {
    const status = await service([order('7', 'alice')], [record('dave', 'PENDING')]).status(admin, 'k', 'dave');
    expect(status).toEqual({ purchaseId: 'k', state: 'PENDING' });
  });
});
