/**
 * Units given back (a cancel, an expiry) go through the same fence check as every other stock
 * write: a holder whose fence is older than the row's changes nothing. The newer writer is
 * simulated by raising the row's lock_fence above every fence Redis has handed out, as after a
 * holder that took the lock later wrote the row.
 */
import Redis from 'ioredis';
import { OrderExpiryService } from '../../apps/api/src/orders/order-expiry.service';
import { AppHarness, startApp } from '../support/app-harness';
import { Api, CreateProductInput, expectInvariants, injectSender, Order, withPg } from '../support/api-client';
import { auth } from '../support/tokens';

jest.setTimeout(90_000);

// The fence counter every lock key of the app shares (LockingModule prefix `fs:lock:` + `#fence`).
const FENCE_COUNTER = 'fs:lock:#fence';

describe('give-backs are fenced', () => {
  let harness: AppHarness;
  let api: Api;
  let redis: Redis;
  let db: string;

  beforeAll(async () => {
    // Orders fall due a second after they are made; the expiry job runs only when called below.
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '100000', ORDER_PAYMENT_TTL_S: '1', ORDER_EXPIRY_INTERVAL_MS: '3600000' });
    api = new Api(injectSender(harness.app));
    redis = harness.redis.client();
    db = harness.env.DATABASE_URL;
  });
  afterAll(async () => {
    redis?.disconnect();
    await harness?.close();
  });

  /** Raises the stock row's fence past any fence handed out so far; returns that fence. */
  const newerWriterFence = async (productId: string, segmented: boolean): Promise<number> => {
    const fence = Number((await redis.get(FENCE_COUNTER)) ?? 0) + 1_000_000;
    const sql = segmented ? 'UPDATE product_segments SET lock_fence = $2 WHERE product_id = $1' : 'UPDATE products SET lock_fence = $2 WHERE id = $1';
    await withPg(db, (pg) => pg.query(sql, [productId, fence]));
    return fence;
  };
  const statusOf = (orderId: string) => withPg(db, async (pg) => (await pg.query('SELECT status FROM orders WHERE id = $1', [orderId])).rows[0].status as string);
  const buy = async (productId: string, user: string): Promise<Order> => {
    const res = await api.purchase(productId, user);
    expect(res.status).toBe(201);
    return res.body;
  };

  it.each([
    ['a plain product', {}],
    ['a segmented product', { segments: 4 }],
  ])('refuses a cancel whose fence is older than the row\'s, writing nothing (%s)', async (_name, extra) => {
    const product = await api.createProduct({ stock: 8, perUserLimit: 2, ...(extra as CreateProductInput) });
    const order = await buy(product.id, 'gb-cancel-user');
    const before = await expectInvariants(db, product.id);
    await newerWriterFence(product.id, 'segments' in extra);

    const refused = await api.cancel(order.id, auth('gb-cancel-user'));
    expect([refused.status, (refused.body as unknown as { code: string }).code]).toEqual([503, 'LOCK_TIMEOUT']);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(await statusOf(order.id)).toBe('PENDING_PAYMENT');
    const after = await expectInvariants(db, product.id);
    expect({ stock: after.stock, live: after.live, quota: after.quotaByUser }).toEqual({ stock: before.stock, live: before.live, quota: before.quotaByUser });

    // The refusal lifted the fence counter past the row's (the lease was ours): a retry succeeds.
    const retried = await api.cancel(order.id, auth('gb-cancel-user'));
    expect([retried.status, retried.body.status]).toEqual([200, 'CANCELLED']);
    const returned = await expectInvariants(db, product.id);
    expect(returned.stock).toBe(8);
  });

  it('refuses an expiry whose fence is older than the row\'s, writing nothing; the next run expires the order', async () => {
    const product = await api.createProduct({ stock: 3, perUserLimit: 1 });
    const order = await buy(product.id, 'gb-expiry-user');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(order.expiresAt) - Date.now() + 100)));
    await newerWriterFence(product.id, false);
    const expiry = harness.app.get(OrderExpiryService);

    expect(await expiry.expireDue()).toBe(0);
    expect(await statusOf(order.id)).toBe('PENDING_PAYMENT');
    const untouched = await expectInvariants(db, product.id);
    expect([untouched.stock, untouched.live]).toEqual([2, 1]);

    expect(await expiry.expireDue()).toBe(1);
    expect(await statusOf(order.id)).toBe('EXPIRED');
    const returned = await expectInvariants(db, product.id);
    expect([returned.stock, returned.live]).toEqual([3, 0]);
  });
});
