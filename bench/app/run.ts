import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createDatabase } from '../../scripts/infra/databases';
import { ensurePostgres } from '../../scripts/infra/postgres';
import { RedisServerProcess } from '../../test/support/redis-server';
import { LimitProbe } from './limit';
import { writeAppSection } from './report';
import { hot, ROUNDS, soldOut } from './scenarios';

/**
 * `npm run bench` (app part): the hot-row ceiling, hot-product purchases through 1 and 2
 * instances, sold-out refusals against a bare endpoint, peak RSS and a CPU profile, all in one
 * run on a private Redis and a fresh database, with the invariants checked after every cell.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '128' }, users: { type: 'string', default: '5000' } } });
  const startedAt = new Date();
  const loadStart = loadavg()[0];
  const postgres = await ensurePostgres();
  const databaseUrl = await createDatabase(postgres.url, 'flashsale_bench', true);
  const redis = await RedisServerProcess.start();
  const env = { databaseUrl, redisUrl: redis.url, seconds: Number(values.seconds), connections: Number(values.connections), users: Number(values.users) };
  try {
    console.log('[bench] hot, 1 instance, taking turns with the limit (one connection, one transaction per purchase)…');
    const probe = new LimitProbe(databaseUrl);
    const hot1 = await hot(env, 1, false, () => probe.run(env.seconds / ROUNDS));
    const limit = await probe.close();
    console.log(`[bench]   ${hot1.purchasesPerSecond.toFixed(0)} purchases/s; limit ${limit.transactionsPerSecond.toFixed(0)} tx/s`);
    console.log('[bench] hot, 2 instances…');
    const hot2 = await hot(env, 2);
    console.log(`[bench]   ${hot2.purchasesPerSecond.toFixed(0)} purchases/s`);
    console.log('[bench] sold-out vs bare endpoint…');
    const sold = await soldOut(env);
    console.log(`[bench]   ${(sold.ratio * 100).toFixed(0)}% of the bare endpoint`);
    console.log('[bench] hot, 1 instance under --cpu-prof (for where the time goes; not a measured cell)…');
    const profiled = await hot({ ...env, seconds: Math.min(env.seconds, 6) }, 1, true);
    const result = {
      command: `npm run bench -- --seconds ${env.seconds} --connections ${env.connections} --users ${env.users}`,
      date: startedAt.toISOString(),
      machine: { cpu: cpus()[0]?.model.trim(), cores: cpus().length, node: process.version, loadStart, loadEnd: loadavg()[0] },
      env: { seconds: env.seconds, connections: env.connections, users: env.users },
      limit,
      hot: [hot1, hot2],
      profile: profiled.profile,
      soldOut: sold,
    };
    mkdirSync('bench/results', { recursive: true });
    writeFileSync('bench/results/app.json', JSON.stringify(result, null, 2));
    writeAppSection(result);
    console.log('[bench] wrote docs/BENCHMARKS.md and bench/results/app.json');
  } finally {
    await redis.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
