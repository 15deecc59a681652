/**
 * Every purchase is answered within PURCHASE_DEADLINE_MS of its arrival (CONTRACT invariant 8),
 * even when the purchase path stalls: another connection holds the product's row lock, so the
 * batch under the product lock waits in Postgres. Purchases past their deadline are answered
 * 503 OVERLOADED with Retry-After and nothing done; sales resume once the row lock is released.
 */
import { Client } from 'pg';
import { AppHarness, startApp } from '../support/app-harness';
import { Api, ApiResponse, expectContractError, expectInvariants, injectSender, withPg, withRetry } from '../support/api-client';

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
