import { join } from 'node:path';
import { runLoadTest } from '../../scripts/loadtest';
import { startApp, AppHarness, TEST_JWT_SECRET, listenOnLoopback } from '../support/app-harness';
import { withPg } from '../support/api-client';
import { runScript as runAnyScript } from '../support/run-script';
import { testOutputDir } from '../support/test-output';

/**
 * The operator's scripts against a deployment that, like production, names the issuer and audience
 * its tokens must carry: each signs its own admin token with them, read from the same environment
 * as the API's (JWT_ISSUER / JWT_AUDIENCE), so none is answered 401.
 */
const CLAIMS = { JWT_ISSUER: 'https://shop.example', JWT_AUDIENCE: 'flash-sale-api' };

/** A script run with the test's secret and, unless `env` gives them, no iss / aud of the caller's shell. */
const runScript = (script: string, args: string[], env: Record<string, string>) =>
  runAnyScript(script, args, { JWT_SECRET: TEST_JWT_SECRET, JWT_ISSUER: '', JWT_AUDIENCE: '', ...env });

jest.setTimeout(120_000);

describe('operator scripts against a deployment that requires iss and aud', () => {
  let harness: AppHarness;
  let url: string;
  beforeAll(async () => {
    harness = await startApp({ ...CLAIMS, RATE_LIMIT_PER_SECOND: '10000' });
    url = await listenOnLoopback(harness.app);
  });
  afterAll(() => harness?.close());

  it('npm run seed creates the products it reports, with the stock asked for', async () => {
    const seeded = await runScript(
      'scripts/seed/main.ts',
      ['--url', url, '--products', '3', '--stock', '7', '--secret', TEST_JWT_SECRET],
      CLAIMS,
    );
    expect(seeded.code).toBe(0);
    const ids = (JSON.parse(seeded.output.trim().split('\n').at(-1)!) as { ids: string[] }).ids;
    expect(ids).toHaveLength(3);
    const stocks = await withPg(harness.database.url, async (pg) =>
      (await pg.query('SELECT stock FROM products WHERE id = ANY($1::bigint[])', [ids])).rows.map(
        (r) => r.stock as number,
      ),
    );
    expect(stocks).toEqual([7, 7, 7]);

    // The same script without the deployment's audience is refused: the claims above are what let it in.
    const withoutAudience = await runScript(
      'scripts/seed/main.ts',
      ['--url', url, '--products', '1', '--secret', TEST_JWT_SECRET],
      { JWT_ISSUER: CLAIMS.JWT_ISSUER },
    );
    expect(withoutAudience.code).not.toBe(0);
    expect(withoutAudience.output).toMatch(/HTTP 401/);
  });

  it('npm run check-history -- --url reads the final orders through the admin API', async () => {
    const file = join(testOutputDir('history'), 'claims.jsonl');
    const result = await runLoadTest({
      urls: [url],
      stock: 20,
      users: 40,
      connections: 4,
      requests: 60,
      tokenSecret: TEST_JWT_SECRET,
      tokenIssuer: CLAIMS.JWT_ISSUER,
      tokenAudience: CLAIMS.JWT_AUDIENCE,
      reportDir: null,
      historyFile: file,
    });
    expect(result.requests).toBe(60);

    const judged = await runScript('scripts/history/cli.ts', [file, '--url', url], CLAIMS);
    expect([judged.code, judged.output]).toEqual([0, expect.stringContaining('history check: PASS')]);
    const flags = await runScript(
      'scripts/history/cli.ts',
      [file, '--url', url, '--token-issuer', CLAIMS.JWT_ISSUER, '--token-audience', CLAIMS.JWT_AUDIENCE],
      {},
    );
    expect([flags.code, flags.output]).toEqual([0, expect.stringContaining('history check: PASS')]);
    // Without them the API refuses the checker, and it says it could not read the final state (exit 2).
    expect((await runScript('scripts/history/cli.ts', [file, '--url', url], {})).code).toBe(2);
  });
});
