import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoadTest } from '../../scripts/loadtest';
import { mintToken } from '../../scripts/loadtest/jwt';
import { parseHistory, PurchaseRecord } from '../../scripts/history/format';
import { startApp, AppHarness, TEST_JWT_SECRET, listenOnLoopback } from '../support/app-harness';
import { uniqueSku, withPg } from '../support/api-client';
import { runScript } from '../support/run-script';
import { testOutputDir } from '../support/test-output';

jest.setTimeout(120_000);

const STOCK = 60;

/**
 * The load spread over two worker threads against the real app: one history, one report, one
 * audit. Ground truth is the product the test puts on sale and the orders Postgres holds for it.
 */
describe('the load test on two worker threads', () => {
  let harness: AppHarness;
  let url: string;
  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '10000' });
    url = await listenOnLoopback(harness.app);
  });
  afterAll(() => harness?.close());

  it('writes one history the checker passes, with as many 201s as units Postgres sold', async () => {
    const admin = mintToken(TEST_JWT_SECRET, 'workers-e2e-admin', 'admin');
    const created = await fetch(`${url}/admin/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sku: uniqueSku('LTW'), name: 'workers', priceCents: 100, stock: STOCK, perUserLimit: 1 }),
    });
    const productId = String(((await created.json()) as { id: string | number }).id);
    const file = join(testOutputDir('lt-workers'), 'history.jsonl');
    const result = await runLoadTest({
      urls: [url],
      productId,
      users: 150,
      connections: 8,
      requests: 150,
      workers: 2,
      tokenSecret: TEST_JWT_SECRET,
      reportDir: testOutputDir('lt-workers'),
      historyFile: file,
      check: true,
      databaseUrl: harness.database.url,
    });
    expect(result.config.workers).toBe(2);
    expect(result.historyCheck?.rules.filter((r) => !r.ok)).toEqual([]);
    expect(result.invariants.filter((i) => !i.ok)).toEqual([]);

    const { ops } = parseHistory(readFileSync(file, 'utf8'));
    const purchases = ops.filter((op): op is PurchaseRecord => op.op === 'purchase');
    // Both threads sent, every attempt once, and the file reads in the order the answers came.
    expect(new Set(purchases.map((op) => op.process?.split('.')[0]))).toEqual(new Set(['w0', 'w1']));
    expect(new Set(purchases.map((op) => op.key)).size).toBe(150);
    expect(ops.map((op) => op.completeMs)).toEqual([...ops.map((op) => op.completeMs)].sort((a, b) => a - b));

    const sold = await withPg(harness.database.url, async (pg) => {
      const { rows } = await pg.query<{ units: string; stock: number }>(
        `SELECT (SELECT coalesce(sum(quantity), 0)::text FROM orders WHERE product_id = $1) AS units,
                (SELECT stock FROM products WHERE id = $1) AS stock`,
        [productId],
      );
      return { units: Number(rows[0].units), stock: Number(rows[0].stock) };
    });
    const created201 = purchases.filter((op) => op.status === 201).length;
    expect(sold).toEqual({ units: STOCK, stock: 0 });
    expect(created201).toBe(sold.units);
    expect(result.purchases).toBe(sold.units);

    // The same file through the command line, judged alone.
    const cli = await runScript('scripts/history/cli.ts', [file, '--database-url', harness.database.url], {
      JWT_SECRET: TEST_JWT_SECRET,
    });
    expect([cli.code, cli.output]).toEqual([0, expect.stringContaining('history check: PASS')]);
    expect(result.generator?.perWorker.map((w) => w.requests).reduce((a, b) => a + b, 0)).toBe(result.requests);
  });
});
