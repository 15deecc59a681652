/**
 * Who may act on an order, and at what rate: ownership is checked before the order's lock, so an
 * attacker flooding a victim's order gets only refusals and never delays the victim; each order
 * route has its own per-user budget; a PAID order is cancelled only by an admin (a refund).
 */
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../../apps/api/src/config/app-config.module';
import { AppHarness, startApp } from '../support/app-harness';
import { Api, ApiResponse, expectContractError, expectInvariants, injectSender, Order, withPg } from '../support/api-client';
import { withLostReply } from '../support/lost-reply';
import { pinRateWindow } from '../support/rate-clock';
import { adminAuth, auth } from '../support/tokens';

jest.setTimeout(90_000);

describe('order routes: ownership before locks, per-user budgets, refunds', () => {
  let harness: AppHarness;
  let api: Api;
  let db: string;

  beforeAll(async () => {
    // No expiry job during the tests: its lock would move the fence counter they read.
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '20', ORDER_EXPIRY_INTERVAL_MS: '3600000' });
    api = new Api(injectSender(harness.app));
    db = harness.env.DATABASE_URL;
  });
  afterAll(async () => {
    await harness?.close();
  });

  /**
   * Watches Redis (MONITOR) while `work` runs and collects, per order, the owner tokens of every
   * attempt on its lock `order:<id>`: each request that tries to take the lock brings its own.
   */
  async function lockOwnersDuring<T>(work: () => Promise<T>): Promise<{ result: T; owners: Map<string, Set<string>> }> {
    const monitor = await harness.redis.client().monitor();
    const owners = new Map<string, Set<string>>();
    monitor.on('monitor', (_time: string, args: unknown[]) => {
      const words = args.map(String);
      const order = words.map((w) => /\{order:(\d+)\}/.exec(w)?.[1]).find(Boolean);
      if (!order) return;
      const set = owners.get(order) ?? new Set<string>();
      for (const word of words) if (/^[0-9a-f]{32}$/.test(word)) set.add(word);
      owners.set(order, set);
    });
    try {
      return { result: await work(), owners };
    } finally {
      monitor.disconnect();
    }
  }
  const orderStatus = (id: string) => withPg(db, async (pg) => (await pg.query('SELECT status, paid_at FROM orders WHERE id = $1', [id])).rows[0]);

  it("an attacker flooding pay and cancel on the victim's order gets only 403/429; the victim pays at once", async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 1 });
    const victimOrder: Order = (await api.purchase(product.id, 'victim')).body;
    const attacker = auth('attacker');
    const attackerAnswers: ApiResponse[] = [];
    let flooding = true;
    // One rate window for the whole flood, so its 429s do not depend on how fast the waves run.
    const unpin = pinRateWindow(harness.app);
    const { result: { paid, tookMs }, owners } = await lockOwnersDuring(async () => {
      // Hundreds of requests in waves of 50, on every route, for as long as the victim is paying.
      const flood = (async () => {
        for (let wave = 0; flooding || wave < 6; wave++) {
          const batch = await Promise.all(
            Array.from({ length: 50 }, (_, i) => (i % 3 === 0 ? api.pay(victimOrder.id, attacker) : i % 3 === 1 ? api.cancel(victimOrder.id, attacker) : api.getOrder(victimOrder.id, attacker))),
          );
          attackerAnswers.push(...batch);
        }
      })();
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      const victimPaid = await api.pay(victimOrder.id, auth('victim'));
      const took = Date.now() - started;
      flooding = false;
      await flood;
      return { paid: victimPaid, tookMs: took };
    }).finally(unpin);

    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id: victimOrder.id, status: 'PAID', userId: 'victim' });
    // Below the order lock's lease: the victim never waited out a lock an attacker held. (How far
    // below depends on the CPU the flood leaves; the lock's MONITOR trace below is the proof.)
    expect(tookMs).toBeLessThan(harness.app.get<ConfigService, TypedConfigService>(ConfigService).get('lock', { infer: true }).ttlMs);
    expect(attackerAnswers.length).toBeGreaterThanOrEqual(300);
    const statuses = new Set(attackerAnswers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([403, 429]);
    for (const res of attackerAnswers) {
      if (res.status === 403) expectContractError(res, 403, 'FORBIDDEN');
      else {
        expectContractError(res, 429, 'RATE_LIMITED');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    expect((await orderStatus(victimOrder.id)).status).toBe('PAID');
    // One owner ever tried the victim's order lock, the victim's pay: no attacker request reached it.
    expect(owners.get(victimOrder.id)?.size).toBe(1);
    await expectInvariants(db, product.id);
  });

  it('each order route has its own per-user budget: spending the reads leaves paying untouched', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 1 });
    const order: Order = (await api.purchase(product.id, 'reader')).body;
    // Reads and pay in one rate window, however long they take: RATE_LIMIT_PER_SECOND is 20.
    const unpin = pinRateWindow(harness.app);
    try {
      const reads = await Promise.all(Array.from({ length: 40 }, () => api.getOrder(order.id, auth('reader'))));
      const limited = reads.filter((r) => r.status === 429);
      expect(limited).toHaveLength(20);
      expect(reads.filter((r) => r.status === 200)).toHaveLength(20);
      expectContractError(limited[0], 429, 'RATE_LIMITED');
      // Same user, same window: the pay route's budget is untouched, and another user's reads too.
      expect((await api.pay(order.id, auth('reader'))).status).toBe(200);
      expect((await api.getOrder(order.id, adminAuth())).status).toBe(200);
    } finally {
      unpin();
    }
  });

  it('a customer cannot cancel a PAID order (409); an admin can, and the stock and quota return', async () => {
    const product = await api.createProduct({ stock: 3, perUserLimit: 2 });
    const order: Order = (await api.purchase(product.id, 'refunded', { quantity: 2 })).body;
    expect((await api.getProduct(product.id)).body.stock).toBe(1);
    expect((await api.pay(order.id, auth('refunded'))).status).toBe(200);
    expectContractError(await api.cancel(order.id, auth('refunded')), 409, 'INVALID_ORDER_STATE');
    expect((await orderStatus(order.id)).status).toBe('PAID');
    expect((await expectInvariants(db, product.id)).stock).toBe(1);

    const refund = await api.cancel(order.id, adminAuth());
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({ id: order.id, status: 'CANCELLED' });
    expect((await orderStatus(order.id)).status).toBe('CANCELLED');
    const report = await expectInvariants(db, product.id);
    expect(report).toMatchObject({ stock: 3, live: 0 });
    expect((await api.getProduct(product.id)).body.stock).toBe(3);
    // The quota came back with the stock: the customer may buy their full limit again.
    expect((await api.purchase(product.id, 'refunded', { quantity: 2 })).status).toBe(201);
    expectContractError(await api.cancel(order.id, adminAuth()), 409, 'INVALID_ORDER_STATE');
  });
});

describe('a pay or cancel whose database reply is lost is answered from what Postgres holds', () => {
  let harness: AppHarness;
  let api: Api;
  let db: string;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '1000' });
    api = new Api(injectSender(harness.app));
    db = harness.env.DATABASE_URL;
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** A fresh order of `user`: a purchase answered anything but 201 fails here, by its answer. */
  async function bought(productId: string, user: string): Promise<Order> {
    const res = await api.purchase(productId, user);
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
    return res.body;
  }

  /** The request's database reply is lost while the test holds the row; `finish` runs in the holder before it lets go. */
  const withLostReplyOn = (order: Order, send: () => Promise<ApiResponse>, finish: string): Promise<ApiResponse> =>
    withLostReply(db, order.id, send, (holder) => holder.query(finish, [order.id]));

  it('503 DEPENDENCY_UNAVAILABLE when the change is not there, and the order stays pending', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 1 });
    const order = await bought(product.id, 'lost-1');
    const res = await withLostReplyOn(order, () => api.pay(order.id, auth('lost-1')), 'SELECT $1::bigint');
    expectContractError(res, 503, 'DEPENDENCY_UNAVAILABLE');
    expect(res.headers['retry-after']).toBeDefined();
    const row = await withPg(db, async (pg) => (await pg.query('SELECT status FROM orders WHERE id = $1', [order.id])).rows[0]);
    expect(row.status).toBe('PENDING_PAYMENT');
    // Nothing was done: paying again works.
    expect((await api.pay(order.id, auth('lost-1'))).status).toBe(200);
  });

  it('200 PAID when the row, once free, shows the order paid', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 1 });
    const order = await bought(product.id, 'lost-2');
    const res = await withLostReplyOn(order, () => api.pay(order.id, auth('lost-2')), "UPDATE orders SET status = 'PAID', paid_at = now() WHERE id = $1");
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 200, body: { id: order.id, status: 'PAID' } });
  });

  it('a cancel: 200 CANCELLED when the row shows it cancelled, 503 and still pending when it does not', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 2 });
    const kept = await bought(product.id, 'lost-3');
    const refused = await withLostReplyOn(kept, () => api.cancel(kept.id, auth('lost-3')), 'SELECT $1::bigint');
    expectContractError(refused, 503, 'DEPENDENCY_UNAVAILABLE');
    const keptRow = await withPg(db, async (pg) => (await pg.query('SELECT status FROM orders WHERE id = $1', [kept.id])).rows[0]);
    expect(keptRow.status).toBe('PENDING_PAYMENT');
    await expectInvariants(db, product.id);

    const gone = await bought(product.id, 'lost-3');
    // The holder commits the whole cancel, as the lost transaction would have: order, stock, quota.
    const cancelled = await withLostReplyOn(
      gone,
      () => api.cancel(gone.id, auth('lost-3')),
      `WITH o AS (UPDATE orders SET status = 'CANCELLED', closed_at = now() WHERE id = $1 RETURNING product_id, user_id, quantity),
            p AS (UPDATE products SET stock = stock + o.quantity FROM o WHERE products.id = o.product_id)
       UPDATE user_product_quota q SET quantity = q.quantity - o.quantity FROM o WHERE q.user_id = o.user_id AND q.product_id = o.product_id`,
    );
    expect({ status: cancelled.status, body: cancelled.body }).toMatchObject({ status: 200, body: { id: gone.id, status: 'CANCELLED' } });
    const report = await expectInvariants(db, product.id);
    expect(report).toMatchObject({ stock: 4, live: 1 });
  });
});
