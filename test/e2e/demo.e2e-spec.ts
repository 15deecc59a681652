import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dropDatabase } from '../../scripts/infra/databases';
import { RedisServerProcess } from '../support/redis-server';

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
    const args = ['scripts/run-ts.sh', 'scripts/demo/main.ts', '--instances', '2', '--stock', '60', '--users', '300', '--requests', '600', '--connections', '16', '--database', database];
    const env = { ...process.env, DATABASE_URL: process.env.TEST_PG_SERVER_URL!, REDIS_URL: redis.url };
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn('bash', args, { env });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('exit', (exitCode) => resolve({ code: exitCode, output }));
    });
    expect(output).toContain('VERDICT: all invariants hold');
    expect(output).toMatch(/stock\s+60 → 0/);
    expect(code).toBe(0);
    const report = /\[demo\] report: (\S+)/.exec(output)?.[1];
    expect(report && existsSync(report)).toBe(true);
    expect(output).toContain('[demo] stopping what the demo started');
  }, 180_000);
});
