import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoadTest } from '../../scripts/loadtest';
import { parseHistory, PurchaseRecord } from '../../scripts/history/format';
import { startApp, AppHarness, TEST_JWT_SECRET, listenOnLoopback } from '../support/app-harness';
import { withPg } from '../support/api-client';
import { runScript } from '../support/run-script';
import { testOutputDir } from '../support/test-output';

const checkCli = (args: string[]) =>
  runScript('scripts/history/cli.ts', args, { JWT_SECRET: TEST_JWT_SECRET }).then(({ code, output }) => ({
    code,
    stdout: output,
  }));

jest.setTimeout(120_000);

describe('load test history against the real app', () => {
  let harness: AppHarness;
  let url: string;
  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '10000' });
    url = await listenOnLoopback(harness.app);
  });
  afterAll(() => harness?.close());

  it('records every request, and the checker passes it, then catches an order slipped in behind a refusal', async () => {
    const file = join(testOutputDir('history'), 'run.jsonl');
    const result = await runLoadTest({
      urls: [url],
      stock: 30,
      users: 60,
      connections: 8,
      requests: 150,
      tokenSecret: TEST_JWT_SECRET,
      reportDir: null,
      historyFile: file,
      check: true,
    });
    expect(result.historyCheck?.rules.filter((r) => !r.ok)).toEqual([]);
    expect(result.ok).toBe(true);
    const { meta, ops } = parseHistory(readFileSync(file, 'utf8'));
    expect(meta.products).toEqual([
      { productId: result.product.id, initialStock: 30, perUserLimit: 1, preexistingOrderIds: [] },
    ]);
    expect(ops.length).toBe(result.requests);
    const created = ops.filter((op): op is PurchaseRecord => op.op === 'purchase' && op.status === 201);
    expect(created.length).toBe(30);
    expect(
      created.every((op) => op.purchaseId === op.key && op.orderId !== undefined && op.completeMs >= op.invokeMs),
    ).toBe(true);

    // The same file through the command line, the final state read both ways.
    const viaApi = await checkCli([file, '--url', url]);
    expect([viaApi.code, viaApi.stdout]).toEqual([0, expect.stringContaining('history check: PASS')]);
    expect((await checkCli([file, '--database-url', harness.database.url])).code).toBe(0);

    // A lie planted in the final state: an order for a purchase the app refused (409 SOLD_OUT).
    const refused = ops.find((op): op is PurchaseRecord => op.op === 'purchase' && op.status === 409)!;
    await withPg(harness.database.url, (pg) =>
      pg.query(
        `INSERT INTO orders (product_id, user_id, quantity, status, idempotency_key, created_at, expires_at) VALUES ($1, $2, 1, 'PENDING_PAYMENT', $3, to_timestamp($4 / 1000.0), now() + interval '1 hour')`,
        [result.product.id, refused.userId, refused.key, refused.invokeMs + 1],
      ),
    );
    const lied = await checkCli([file, '--database-url', harness.database.url]);
    expect(lied.code).toBe(1);
    expect(lied.stdout).toMatch(/FAIL no refused purchase has an order/);
    expect(lied.stdout).toMatch(/FAIL units sold <= initial stock/);
  });

  it('records reads, pays, cancels and polls, and the app passes every rule with each judging something', async () => {
    const file = join(testOutputDir('history'), 'full.jsonl');
    const result = await runLoadTest({
      urls: [url],
      stock: 40,
      users: 80,
      connections: 8,
      requests: 200,
      tokenSecret: TEST_JWT_SECRET,
      reportDir: null,
      historyFile: file,
      check: true,
      databaseUrl: harness.database.url,
      payEvery: 3,
      cancelEvery: 4,
      readEveryMs: 20,
      paymentTtlS: 900,
      requireRules: ['all'],
    });
    const rules = result.historyCheck?.rules ?? [];
    expect(rules.filter((r) => !r.ok).map((r) => [r.id, r.checked, r.examples])).toEqual([]);
    expect(rules.filter((r) => r.checked === 0)).toEqual([]);
    const { ops } = parseHistory(readFileSync(file, 'utf8'));
    const kinds = new Set(ops.map((op) => op.op));
    expect(['purchase', 'read', 'pay', 'cancel'].filter((k) => !kinds.has(k as never))).toEqual([]);
    // Cancelled units went back on sale and were sold again: more orders than units.
    expect(result.purchases).toBeGreaterThan(40);
  });
});
