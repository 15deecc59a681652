import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { dropDatabase } from '../../scripts/infra/databases';
import { freePort } from '../support/free-port';
import { RedisServerProcess } from '../support/redis-server';

function runDemo(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['scripts/run-ts.sh', 'scripts/demo/main.ts', ...args], { env });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (exitCode) => resolve({ code: exitCode, output }));
  });
}

/** The system temp folder (the test run points TMPDIR into the project; see global-setup). */
const systemTmp = (): string => process.env.SYSTEM_TMPDIR ?? tmpdir();

/** The mode of every folder from the project up to `/`, and of the system temp folder. */
function folderModes(): Record<string, number> {
  const modes: Record<string, number> = {};
  for (let dir = resolve('.'); ; dir = dirname(dir)) {
    modes[dir] = statSync(dir).mode;
    if (dir === '/') break;
  }
  modes[systemTmp()] = statSync(systemTmp()).mode;
  return modes;
}

/** The README's first command, end to end with small numbers: a whole sale, verdict and report. */
describe('npm run demo', () => {
  let redis: RedisServerProcess;
  const database = `fs_test_demo_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    redis = await RedisServerProcess.start();
  });
  afterAll(async () => {
    await redis.stop();
    await dropDatabase(process.env.TEST_PG_SERVER_URL!, database);
  });

  it('sells exactly the stock across 2 instances, reports every invariant holding, writes the report and stops what it started', async () => {
    const args = ['--instances', '2', '--stock', '60', '--users', '300', '--requests', '600', '--connections', '16', '--database', database];
    const { code, output } = await runDemo(args, { ...process.env, DATABASE_URL: process.env.TEST_PG_SERVER_URL!, REDIS_URL: redis.url });
    expect(output).toContain('VERDICT: all invariants hold');
    expect(output).toMatch(/stock\s+60 → 0/);
    expect(code).toBe(0);
    const report = /\[demo\] report: (\S+)/.exec(output)?.[1];
    expect(report && existsSync(report)).toBe(true);
    expect(output).toContain('[demo] stopping what the demo started');
  }, 180_000);

  it('on a machine where nothing answers, starts private Postgres and Redis inside the project and changes nothing outside it', async () => {
    const closed = await freePort();
    const modesBefore = folderModes();
    const tempBefore = new Set(readdirSync(systemTmp()));
    const args = ['--instances', '1', '--stock', '20', '--users', '60', '--requests', '120', '--connections', '8'];
    const env = { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/flashsale`, REDIS_URL: `redis://127.0.0.1:${closed}` };
    const { code, output } = await runDemo(args, env);
    expect(output).toContain('started a private PostgreSQL');
    expect(output).toContain('VERDICT: all invariants hold');
    expect(code).toBe(0);
    expect(folderModes()).toEqual(modesBefore);
    // A private server's socket or data folder in the shared temp folder would be a change outside the project.
    const leftInTemp = readdirSync(systemTmp()).filter((name) => !tempBefore.has(name) && /PGSQL|pg|postgres/i.test(name));
    expect(leftInTemp).toEqual([]);
  }, 240_000);

  it('with --keep, serves the storefront on its own origin and prints its URL, allowed by the API, until Ctrl-C', async () => {
    const args = ['scripts/run-ts.sh', 'scripts/demo/main.ts', '--instances', '1', '--stock', '5', '--users', '20', '--requests', '40', '--connections', '4', '--database', database, '--keep'];
    const child = spawn('bash', args, { env: { ...process.env, DATABASE_URL: process.env.TEST_PG_SERVER_URL!, REDIS_URL: redis.url } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      while (!/Ctrl-C stops everything/.test(output) && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      const page = /\[demo\] storefront \(.*?\): (\S+)/.exec(output)?.[1];
      expect(page).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#api=.+&product=\d+&token=.+/);
      const shop = new URL(page!);
      const settings = new URLSearchParams(shop.hash.slice(1));
      expect((await fetch(shop)).status).toBe(200);
      const read = await fetch(`${settings.get('api')}/products/${settings.get('product')}`, { headers: { origin: shop.origin } });
      expect(read.status).toBe(200);
      expect(read.headers.get('access-control-allow-origin')).toBe(shop.origin);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(output).toContain('[demo] stopping what the demo started');
  }, 180_000);
});
