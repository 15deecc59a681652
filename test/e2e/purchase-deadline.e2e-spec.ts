/**
 * Every purchase is answered within PURCHASE_DEADLINE_MS of its arrival (CONTRACT invariant 8),
 * even when the purchase path stalls: another connection holds the product's row lock, so the
 * batch under the product lock waits in Postgres. Purchases past their deadline are answered
 * 503 OVERLOADED with Retry-After and nothing done; sales resume once the row lock is released.
 */
import { Client } from 'pg';
import { AppHarness, startApp } from '../support/app-harness';
import { Api, ApiResponse, eventually, expectContractError, expectInvariants, injectSender, withPg, withRetry } from '../support/api-client';

jest.setTimeout(90_000);

const DEADLINE_MS = 1500;
// Generous: the machine running the suite may be busy; the point is "bounded", not "fast".
const MARGIN_MS = 1500;

interface Timed {
  res: ApiResponse;
  tookMs: number;
}

async function timed(send: () => Promise<ApiResponse>): Promise<Timed> {
  const started = Date.now();
  const res = await send();
  return { res, tookMs: Date.now() - started };
}

describe('purchase deadline under a stalled row lock', () => {
  let harness: AppHarness;
  let api: Api;
  let holder: Client | undefined;

  /** Holds the product's row lock from a connection of its own, as a stalled transaction would. */
  async function holdRowLock(productId: string): Promise<() => Promise<void>> {
    const client = new Client({ connectionString: harness.database.url });
    holder = client;
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT id FROM products WHERE id = $1 FOR UPDATE', [productId]);
    return async () => {
      await client.query('COMMIT');
      await client.end();
      holder = undefined;
    };
  }

  beforeAll(async () => {
    harness = await startApp({ PURCHASE_DEADLINE_MS: String(DEADLINE_MS), RATE_LIMIT_PER_SECOND: '100000' });
    api = new Api(injectSender(harness.app));
  });

  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await harness?.close();
  });

  const metric = async (line: RegExp): Promise<number> => {
    const text = (await api.send({ method: 'GET', url: '/metrics' })).raw;
    return text
      .split('\n')
      .filter((l) => line.test(l))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
  };

  it('refuses purchases past the deadline with 503 OVERLOADED, does nothing for them, and sells again once the lock is gone', async () => {
    const product = await api.createProduct({ stock: 50, perUserLimit: 1 });
    expect((await api.purchase(product.id, 'warm-up')).status).toBe(201);

    const release = await holdRowLock(product.id);

    const buyers = Array.from({ length: 30 }, (_, i) => ({ user: `stalled-${i}`, key: `key-${i}` }));
    const answers = await Promise.all(buyers.map((b) => timed(() => api.purchase(product.id, b.user, { idempotencyKey: b.key }))));

    for (const { res, tookMs } of answers) {
      expectContractError(res, 503, 'OVERLOADED');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(tookMs).toBeLessThanOrEqual(DEADLINE_MS + MARGIN_MS);
    }
    // Nothing half done: the held row is as it was, and none of the refused buyers has an order.
    const during = await withPg(harness.database.url, (pg) =>
      pg.query<{ n: number }>("SELECT count(*)::int AS n FROM orders WHERE product_id = $1 AND user_id LIKE 'stalled-%'", [product.id]),
    );
    expect(during.rows[0].n).toBe(0);
    expect(await metric(/^purchase_refused_total\{reason="(statement_bound|expired|lock_wait|wait_estimate)"\}/)).toBeGreaterThanOrEqual(buyers.length);

    await release();

    // Sales resume: every refused buyer retries with the same key (as Retry-After says) and buys once.
    const retried = await Promise.all(buyers.map((b) => withRetry(() => api.purchase(product.id, b.user, { idempotencyKey: b.key }), 30, 1000)));
    for (const outcome of retried) expect(outcome.final.status).toBe(201);
    const report = await expectInvariants(harness.database.url, product.id);
    expect(report.stock).toBe(50 - 1 - buyers.length);
    expect(report.ordersByStatus).toEqual({ PENDING_PAYMENT: 1 + buyers.length });
  });

  it('keeps answering within the deadline while the stall lasts, and the answer after it is a sale', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 1 });
    const release = await holdRowLock(product.id);

    for (let round = 0; round < 3; round++) {
      const { res, tookMs } = await timed(() => api.purchase(product.id, `patient-${round}`));
      expectContractError(res, 503, 'OVERLOADED');
      expect(tookMs).toBeLessThanOrEqual(DEADLINE_MS + MARGIN_MS);
    }
    await release();
    const after = await withRetry(() => api.purchase(product.id, 'patient-0'), 10, 1000);
    expect(after.final.status).toBe(201);
    const report = await expectInvariants(harness.database.url, product.id);
    expect(report.stock).toBe(4);
  });
});

describe('refusing at once when every queue is full', () => {
  let harness: AppHarness;
  let api: Api;
  let holder: Client | undefined;

  beforeAll(async () => {
    // One queued purchase fills the instance; a long deadline keeps the stalled ones waiting.
    harness = await startApp({ PURCHASE_DEADLINE_MS: '10000', PURCHASE_QUEUE_MAX: '1', RATE_LIMIT_PER_SECOND: '100000' });
    api = new Api(injectSender(harness.app));
  });

  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await harness?.close();
  });

  const depth = async (): Promise<number> => {
    const text = (await api.send({ method: 'GET', url: '/metrics' })).raw;
    return Number(/^purchase_admission_queue_depth (\S+)$/m.exec(text)?.[1] ?? NaN);
  };

  it('answers OVERLOADED while earlier purchases still wait, keeps 401 for a bad token, and sells the admitted ones', async () => {
    const product = await api.createProduct({ stock: 10, perUserLimit: 1 });
    holder = new Client({ connectionString: harness.database.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM products WHERE id = $1 FOR UPDATE', [product.id]);

    const settled = new Set<string>();
    const track = (name: string, answer: Promise<ApiResponse>) => answer.finally(() => settled.add(name));
    const first = track('first', api.purchase(product.id, 'first'));
    // The first purchase's statement waits on the held row lock...
    await eventually(
      () => withPg(harness.database.url, async (pg) => (await pg.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%purchase_batch%'")).rowCount),
      20_000,
      50,
      'the first batch to wait on the row lock',
    );
    // ...and the second waits in the queue behind it, filling PURCHASE_QUEUE_MAX.
    const second = track('second', api.purchase(product.id, 'second'));
    await eventually(async () => (await depth()) === 1, 20_000, 50, 'the second purchase to be queued');

    const refused = await api.purchase(product.id, 'third');
    expectContractError(refused, 503, 'OVERLOADED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect([...settled]).toEqual([]); // refused at once, while the earlier two still wait
    const badToken = await api.send({ method: 'POST', url: `/products/${product.id}/purchase`, headers: { authorization: 'Bearer nonsense' }, payload: { quantity: 1 } });
    expectContractError(badToken, 401, 'UNAUTHENTICATED');

    await holder.query('COMMIT');
    await holder.end();
    holder = undefined;
    expect((await first).status).toBe(201);
    expect((await second).status).toBe(201);
    const report = await expectInvariants(harness.database.url, product.id);
    expect(report.liveByUser).toEqual({ first: 1, second: 1 });
  });
});

