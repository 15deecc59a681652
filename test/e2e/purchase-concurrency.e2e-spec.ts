/**
 * The contract's invariants under concurrency: 3 built app instances (separate processes) sharing
 * one Postgres database and one private redis-server; then Redis killed mid-sale, with
 * LOCK_FALLBACK=db and with LOCK_FALLBACK=reject (in-process apps with their own redis-server).
 *
 * Needs the built app (`npm run build`; `npm test` builds first).
 */
import { join } from 'node:path';
import { ApiProcess } from '../../scripts/infra/api-process';
import { AppHarness, startApp, TEST_JWT_SECRET } from '../support/app-harness';
import { Api, ApiResponse, eventually, expectInvariants, httpSender, injectSender, Order, ordersInDatabase, RetryOutcome, withPg, withRetry } from '../support/api-client';
import { freePort } from '../support/free-port';
import { adminAuth, auth } from '../support/tokens';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { testOutputDir } from '../support/test-output';

jest.setTimeout(120_000);

const LOG_DIR = testOutputDir('purchase-concurrency-logs');

/** Status and code of an answer, e.g. "201" or "409 SOLD_OUT". */
const outcome = (res: ApiResponse): string => (res.status < 300 ? String(res.status) : `${res.status} ${res.body?.code ?? res.raw.slice(0, 80)}`);

function tally(outcomes: RetryOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[outcome(o.final)] = (counts[outcome(o.final)] ?? 0) + 1;
  return counts;
}

/** Every answer along the way (retries included) must be a contract answer: no 500s, 503s with Retry-After. */
function expectOnlyContractAnswers(outcomes: RetryOutcome[], allowed: string[]): void {
  const bad: string[] = [];
  for (const o of outcomes) {
    for (const res of o.history) {
      const label = outcome(res);
      if (!allowed.includes(label)) bad.push(`${label}: ${res.raw.slice(0, 200)}`);
      else if (res.status === 503 && !res.headers['retry-after']) bad.push(`${label} without Retry-After`);
      else if (res.status >= 400 && Object.keys(res.body ?? {}).sort().join() !== 'code,message,statusCode') bad.push(`${label}: body ${res.raw.slice(0, 200)}`);
    }
  }
  expect(bad.slice(0, 10)).toEqual([]);
}

const createdOrders = (outcomes: RetryOutcome[]): Order[] => outcomes.filter((o) => o.final.status === 201).map((o) => o.final.body as Order);

describe('purchases across 3 app instances (separate processes)', () => {
  let redis: RedisServerProcess;
  let database: TestDatabase;
  const instances: ApiProcess[] = [];
  let apis: Api[] = [];

  beforeAll(async () => {
    [redis, database] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_PER_SECOND: '100000',
    };
    for (let i = 0; i < 3; i++) {
      instances.push(new ApiProcess({ port: await freePort(), env, logFile: join(LOG_DIR, `api-${i}.log`) }));
    }
    // The first runs the migrations; the other two join it.
    await instances[0].start(60_000);
    await Promise.all(instances.slice(1).map((instance) => instance.start(60_000)));
    apis = instances.map((instance) => new Api(httpSender(instance.url)));
  }, 150_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop('SIGTERM').catch(() => undefined)));
    await redis?.stop();
    await database?.drop();
  });

  it('500 concurrent buyers for 100 units sell exactly 100; 400 get SOLD_OUT; invariants hold', async () => {
    const product = await apis[0].createProduct({ stock: 100, perUserLimit: 1 });
    const outcomes = await Promise.all(
      Array.from({ length: 500 }, (_, i) => withRetry(() => apis[i % 3].purchase(product.id, `crowd-${i}`), 30, 1500)),
    );
    const counts = tally(outcomes);
    expect(counts).toEqual({ '201': 100, '409 SOLD_OUT': 400 });
    expectOnlyContractAnswers(outcomes, ['201', '409 SOLD_OUT', '503 LOCK_TIMEOUT', '503 OVERLOADED']);
    const orders = createdOrders(outcomes);
    expect(new Set(orders.map((o) => o.id)).size).toBe(100);
    const rows = await ordersInDatabase(database.url, orders.map((o) => o.id));
    expect(rows.size).toBe(100); // every 201 is durable
    const report = await expectInvariants(database.url, product.id);
    expect(report).toMatchObject({ stock: 0, live: 100, supplied: 100, ordersByStatus: { PENDING_PAYMENT: 100 } });
    // every instance agrees it is sold out
    for (const api of apis) expect((await api.getProduct(product.id)).body.stock).toBe(0);
  });

  it("one user's 50 parallel requests respect perUserLimit=2: exactly 2 orders", async () => {
    const product = await apis[1].createProduct({ stock: 100, perUserLimit: 2 });
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => withRetry(() => apis[i % 3].purchase(product.id, 'one-greedy-user'), 30, 1500)));
    expect(tally(outcomes)).toEqual({ '201': 2, '409 PER_USER_LIMIT': 48 });
    expectOnlyContractAnswers(outcomes, ['201', '409 PER_USER_LIMIT', '503 LOCK_TIMEOUT', '503 OVERLOADED']);
    const report = await expectInvariants(database.url, product.id);
    expect(report).toMatchObject({ stock: 98, live: 2, liveByUser: { 'one-greedy-user': 2 }, quotaByUser: { 'one-greedy-user': 2 } });
  });

  it('30 parallel replays of one Idempotency-Key create one order; all 30 answers carry its id', async () => {
    const product = await apis[2].createProduct({ stock: 100, perUserLimit: 5 });
    const key = `replay-${Date.now()}`;
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => withRetry(() => apis[i % 3].purchase(product.id, 'replaying-user', { quantity: 1, idempotencyKey: key }), 30, 1500)),
    );
    expect(tally(outcomes)).toEqual({ '201': 30 });
    expectOnlyContractAnswers(outcomes, ['201', '503 LOCK_TIMEOUT', '503 OVERLOADED']);
    const ids = new Set(outcomes.map((o) => (o.final.body as Order).id));
    expect(ids.size).toBe(1);
    const first = outcomes[0].final.body as Order;
    for (const o of outcomes) expect(o.final.body).toEqual(first);
    const count = await withPg(database.url, async (pg) => (await pg.query('SELECT COUNT(*)::int AS n FROM orders WHERE product_id = $1', [product.id])).rows[0].n);
    expect(count).toBe(1);
    const report = await expectInvariants(database.url, product.id);
    expect(report).toMatchObject({ stock: 99, live: 1 });
  });

  it('10 parallel cancels of one order: exactly one 200, the rest 409 INVALID_ORDER_STATE; stock returned once', async () => {
    const product = await apis[0].createProduct({ stock: 5, perUserLimit: 3 });
    const res = await apis[0].purchase(product.id, 'double-canceller', { quantity: 3 });
    expect(res.status).toBe(201);
    const order = res.body as Order;
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => withRetry(() => apis[i % 3].cancel(order.id, i % 2 ? auth('double-canceller') : adminAuth()), 30, 1500)),
    );
    expect(tally(outcomes)).toEqual({ '200': 1, '409 INVALID_ORDER_STATE': 9 });
    expectOnlyContractAnswers(outcomes, ['200', '409 INVALID_ORDER_STATE', '503 LOCK_TIMEOUT']);
    const report = await expectInvariants(database.url, product.id);
    expect(report).toMatchObject({ stock: 5, live: 0, ordersByStatus: { CANCELLED: 1 } });
  });

  it('admin stock adjustments during a rush keep conservation (supplied = stock + live) and never oversell', async () => {
    const product = await apis[0].createProduct({ stock: 40, perUserLimit: 1 });
    let answered = 0;
    const buyers = Array.from({ length: 150 }, (_, i) => withRetry(() => apis[i % 3].purchase(product.id, `rush-${i}`), 30, 1500).finally(() => answered++));
    // Each adjustment once more of the rush has been answered, so they land among the purchases.
    const adjustments = (async () => {
      const answers: ApiResponse[] = [];
      for (const [i, stock] of [60, 10, 25].entries()) {
        await eventually(async () => answered > i * 10, 60_000, 1, `${i * 10 + 1} answered purchases`);
        answers.push((await withRetry(() => apis[1].setStock(product.id, stock), 30, 1500)).final);
      }
      return answers;
    })();
    const outcomes = await Promise.all(buyers);
    const adminAnswers = await adjustments;
    expect(adminAnswers.map((a) => a.status)).toEqual([200, 200, 200]);
    expectOnlyContractAnswers(outcomes, ['201', '409 SOLD_OUT', '503 LOCK_TIMEOUT', '503 OVERLOADED']);
    const sold = createdOrders(outcomes);
    const report = await expectInvariants(database.url, product.id);
    expect(report.live).toBe(sold.length);
    // the last adjustment set the stock to 25 units still for sale; buyers after it may have taken some
    expect(report.stock).toBeLessThanOrEqual(25);
  });
});

describe('Redis killed mid-sale', () => {
  /**
   * Fires `before` buyers, kills the private redis-server while their requests are in flight,
   * then fires `after` more buyers against the Redis-less app.
   */
  async function saleThroughRedisKill(harness: AppHarness, productId: string, before: number, after: number, maxAttempts: number) {
    const api = new Api(injectSender(harness.app));
    let answered = 0;
    const buy = (user: string) => withRetry(() => api.purchase(productId, user), maxAttempts, 1000);
    const first = Array.from({ length: before }, (_, i) => buy(`pre-kill-${i}`).finally(() => answered++));
    // The sale is under way once a first buyer is answered; the others are still in flight.
    await eventually(async () => answered > 0, 30_000, 1, 'a first answered purchase');
    await harness.redis.kill();
    const second = Array.from({ length: after }, (_, i) => buy(`post-kill-${i}`));
    return { inFlight: await Promise.all(first), afterKill: await Promise.all(second) };
  }

  describe('LOCK_FALLBACK=db', () => {
    let harness: AppHarness;
    beforeAll(async () => {
      harness = await startApp({ LOCK_FALLBACK: 'db', RATE_LIMIT_PER_SECOND: '100000' });
    }, 60_000);
    afterAll(async () => {
      await harness?.close();
    });

    it('sells on with Postgres alone: 201s after the kill, the whole stock sold, no oversell, invariants hold', async () => {
      const api = new Api(injectSender(harness.app));
      const product = await api.createProduct({ stock: 60, perUserLimit: 1 });
      const { inFlight, afterKill } = await saleThroughRedisKill(harness, product.id, 40, 60, 15);
      const all = [...inFlight, ...afterKill];
      expectOnlyContractAnswers(all, ['201', '409 SOLD_OUT', '503 LOCK_TIMEOUT', '503 OVERLOADED', '503 DEPENDENCY_UNAVAILABLE']);
      const sold = createdOrders(all);
      expect(createdOrders(afterKill).length).toBeGreaterThan(0);
      expect(sold.length).toBe(60);
      expect(tally(all)).toEqual({ '201': 60, '409 SOLD_OUT': 40 });
      const rows = await ordersInDatabase(harness.env.DATABASE_URL, sold.map((o) => o.id));
      expect(rows.size).toBe(sold.length);
      const report = await expectInvariants(harness.env.DATABASE_URL, product.id);
      expect(report).toMatchObject({ stock: 0, live: 60 });
    });
  });

  describe('LOCK_FALLBACK=reject', () => {
    let harness: AppHarness;
    beforeAll(async () => {
      harness = await startApp({ LOCK_FALLBACK: 'reject', RATE_LIMIT_PER_SECOND: '100000' });
    }, 60_000);
    afterAll(async () => {
      await harness?.close();
    });

    it('answers 503 DEPENDENCY_UNAVAILABLE with Retry-After once Redis is gone; nothing oversold', async () => {
      const api = new Api(injectSender(harness.app));
      const product = await api.createProduct({ stock: 30, perUserLimit: 1 });
      // the product is known and on sale before the fault
      expect((await api.purchase(product.id, 'warm-up')).status).toBe(201);
      const { inFlight, afterKill } = await saleThroughRedisKill(harness, product.id, 20, 20, 1);
      expectOnlyContractAnswers(inFlight, ['201', '503 LOCK_TIMEOUT', '503 OVERLOADED', '503 DEPENDENCY_UNAVAILABLE']);
      expectOnlyContractAnswers(afterKill, ['503 DEPENDENCY_UNAVAILABLE']);
      for (const o of afterKill) expect(Number(o.final.headers['retry-after'])).toBeGreaterThan(0);
      const sold = createdOrders(inFlight);
      const rows = await ordersInDatabase(harness.env.DATABASE_URL, sold.map((o) => o.id));
      expect(rows.size).toBe(sold.length);
      const report = await expectInvariants(harness.env.DATABASE_URL, product.id);
      expect(report.live).toBeGreaterThanOrEqual(1 + sold.length);
      expect(report.live).toBeLessThanOrEqual(1 + inFlight.length);
      expect(Object.keys(report.liveByUser).filter((u) => u.startsWith('post-kill-'))).toEqual([]);
    });
  });
});
