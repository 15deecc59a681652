import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { parseHistory, PurchaseRecord } from '../../scripts/history/format';
import { ApiProcess } from '../../scripts/infra/api-process';
import { runScript } from '../support/run-script';
import { ProductionInstance, startProductionInstance } from '../support/production-instance';
import { testOutputDir } from '../support/test-output';

jest.setTimeout(240_000);

const ROOT = resolve(__dirname, '../..');
const SECRET = randomBytes(32).toString('hex');
const AUDIENCE = 'flash-sale-shared-run-test';
const RUN_ID = `shared-${randomBytes(3).toString('hex')}`;
/** The rules a sale of purchases and reads by two machines gives to judge, each across both histories. */
const JUDGED =
  'durable,refusals,explained,outcome,units,per-user,purchase-answers,real-time,reads-rise,reads-fall,reads-level,no-5xx';

/** A load-test process as `npm run loadtest` starts it, its output kept and watched as it comes. */
class Generator {
  readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<number | null>;

  constructor(args: string[]) {
    this.child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'scripts/loadtest/cli.ts', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, JWT_SECRET: SECRET, JWT_AUDIENCE: AUDIENCE },
      },
    );
    const keep = (chunk: Buffer) => (this.output += chunk);
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.exited = new Promise((done) => this.child.on('close', done));
  }

  /** Resolves with the first match of `pattern` in the output, or fails when the process ends first. */
  async waitFor(pattern: RegExp, timeoutMs = 90_000): Promise<RegExpMatchArray> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match) return match;
      if (this.child.exitCode !== null || Date.now() > until)
        throw new Error(`no ${pattern} in the generator's output:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const created = (file: string): Set<string> =>
  new Set(
    parseHistory(readFileSync(file, 'utf8'))
      .ops.filter((op): op is PurchaseRecord => op.op === 'purchase' && op.status === 201)
      .map((op) => op.orderId as string),
  );

/**
 * Two generator processes, a lead and a follower, sell one product of one production-mode
 * instance under one run id; the checker judges their two histories as one sale. Ground truth:
 * the product's orders and stock, read from Postgres by the test.
 */
describe('a sale driven by two generators with one run id', () => {
  let instance: ProductionInstance;
  let api: ApiProcess;

  beforeAll(async () => {
    instance = await startProductionInstance({ secret: SECRET, audience: AUDIENCE });
    api = instance.api;
  }, 120_000);

  afterAll(() => instance?.stop());

  it('writes two histories that check-history judges together clean, their 201s the units sold', async () => {
    const dir = testOutputDir('shared-run');
    const [leadFile, followerFile] = [join(dir, 'lead.jsonl'), join(dir, 'follower.jsonl')];
    // Both begin buying at one moment of the API's clock, long enough from now for both to be ready.
    const startAt = new Date(Date.now() + 30_000).toISOString();
    const load = ['--users', '300', '--connections', '4', '--duration', '4', '--read-every-ms', '50'];
    const shared = ['--url', api.url, '--run-id', RUN_ID, '--start-at', startAt, '--no-report'];
    const lead = new Generator([
      ...shared,
      '--role',
      'lead',
      '--generator',
      'm1',
      '--stock',
      '250',
      ...load,
      '--history',
      leadFile,
    ]);
    const [, productId] = await lead.waitFor(/product (\d+) is for sale; on each other machine: npm run loadtest/);
    const follower = new Generator([
      ...shared,
      '--role',
      'follower',
      '--generator',
      'm2',
      '--product',
      productId,
      ...load,
      '--history',
      followerFile,
    ]);
    const [leadCode, followerCode] = await Promise.all([lead.exited, follower.exited]);
    expect([leadCode, lead.output]).toEqual([0, expect.stringContaining('generator m1 (lead), clock')]);
    expect([followerCode, follower.output]).toEqual([0, expect.stringContaining('generator m2 (follower), clock')]);

    const check = await runScript('scripts/history/cli.ts', [
      leadFile,
      followerFile,
      '--database-url',
      instance.databaseUrl,
      '--require',
      JUDGED,
    ]);
    expect([check.code, check.stdout]).toEqual([0, expect.stringContaining('history check: PASS')]);
    expect(check.stdout).toContain(`run ${RUN_ID}: 2 history file(s) judged as one sale`);

    // Ground truth: what Postgres holds for the product.
    const pg = new Client({ connectionString: instance.databaseUrl });
    await pg.connect();
    const { rows } = await pg
      .query<{ live: number; orders: number; stock: number }>(
        `SELECT (SELECT coalesce(sum(quantity), 0)::int FROM orders WHERE product_id = $1 AND status IN ('PENDING_PAYMENT', 'PAID')) AS live,
                (SELECT count(*)::int FROM orders WHERE product_id = $1) AS orders,
                (SELECT stock FROM products WHERE id = $1) AS stock`,
        [productId],
      )
      .finally(() => pg.end());
    const [byLead, byFollower] = [created(leadFile), created(followerFile)];
    // Both generators sold, and no order was told to both.
    expect([byLead.size > 0, byFollower.size > 0]).toEqual([true, true]);
    expect([...byLead].filter((id) => byFollower.has(id))).toEqual([]);
    expect(byLead.size + byFollower.size).toBe(rows[0].orders);
    expect(rows[0]).toMatchObject({ live: byLead.size + byFollower.size, stock: 250 - rows[0].live });

    // The follower's measured offset is what puts its history on the API's clock. Claim instead
    // that its clock ran a minute behind: its purchases were sent after the orders they made.
    // A minute ahead: it bought before the lead had even created the product.
    const judgeSkewed = async (byMs: number) => {
      const lines = readFileSync(followerFile, 'utf8').split('\n');
      const meta = JSON.parse(lines[0]) as { run: { clock: { offsetMs: number } } };
      meta.run.clock.offsetMs += byMs;
      const skewed = join(dir, `follower-skewed-${byMs}.jsonl`);
      writeFileSync(skewed, [JSON.stringify(meta), ...lines.slice(1)].join('\n'));
      return runScript('scripts/history/cli.ts', [leadFile, skewed, '--database-url', instance.databaseUrl]);
    };
    const behind = await judgeSkewed(60_000);
    expect([behind.code, behind.stdout]).toEqual([
      1,
      expect.stringMatching(/FAIL every order was made by a request that was not refused/),
    ]);
    const ahead = await judgeSkewed(-60_000);
    expect([ahead.code, ahead.stderr]).toEqual([2, expect.stringMatching(/before the lead read its products/)]);
  });
});
