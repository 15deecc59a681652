import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { runLoadTest } from '../../scripts/loadtest';
import type { LoadTestOptions, LoadTestResult } from '../../scripts/loadtest/types';
import { createDatabase } from '../../scripts/infra/databases';
import { ensurePostgres } from '../../scripts/infra/postgres';
import { ApiProcess } from '../../scripts/infra/api-process';
import { RedisServerProcess } from '../../test/support/redis-server';
import { freePort } from '../../test/support/free-port';
import { BENCH_AUDIENCE, BENCH_SECRET } from '../app/app-stack';
import { ownDatabaseAs } from '../../scripts/infra/databases';
import { buildBaseline, resolveCommit } from '../app/baseline-build';

/**
 * Issue 48's sale, measured with the load test: `--stock` units through the waiting room,
 * `--people` people from distinct client addresses arriving over a `--pre-queue-s` pre-queue, and
 * a bot operator of `--bots` accounts over `--bot-addresses` addresses (joining at the first
 * instant, polling at the per-ticket limit, buying the moment they are admitted). The
 * configurations (`--configs`: none = no bots, defaults, jpa3 = `joinsPerAddress` 3, jpa3v6 = the
 * same with every bot account claiming its own address of one IPv6 /64 through a trusted
 * X-Forwarded-For (the API trusts loopback, as behind a balancer), work = join
 * work of `--squarings`, plain = the same people and bots buying without a waiting room, bots
 * re-sending a refused purchase every 10 ms) alternate over `--runs` rounds, each run on a fresh
 * production-mode instance with the API's default rate limits, on its own database and Redis.
 * Every run's history is judged by the checker against Postgres. Prints one table row per run.
 * `--per-user-limit` sets the product's (1 by default) and `--rate-limit-per-second` the API's
 * RATE_LIMIT_PER_SECOND (its default when absent), for short-stock sales of several units each.
 *
 * `--baseline <git-ref>` runs the API of that commit's build instead (built into `.infra/baseline`,
 * as the app bench's A/B does), for a before-and-after of a defence.
 *
 * `npm run bench:bots -- --runs 3` (builds first).
 */
const CONFIGS = ['none', 'defaults', 'jpa3', 'jpa3v6', 'work', 'plain'] as const;
type Config = (typeof CONFIGS)[number];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      stock: { type: 'string', default: '1000' },
      people: { type: 'string', default: '2000' },
      bots: { type: 'string', default: '400' },
      'bot-addresses': { type: 'string', default: '10' },
      'pre-queue-s': { type: 'string', default: '10' },
      'admit-per-second': { type: 'string', default: '200' },
      configs: { type: 'string', default: 'none,defaults,jpa3' },
      // The generator solves every account's puzzle on its own threads beside the API: at 2,000
      // squarings the 2,400 solves fit the 10 s pre-queue on 2 cores, at 20,000 they do not.
      squarings: { type: 'string', default: '2000' },
      connections: { type: 'string', default: '64' },
      'per-user-limit': { type: 'string' },
      'rate-limit-per-second': { type: 'string' },
      baseline: { type: 'string' },
    },
  });
  const entry = values.baseline ? buildBaseline(resolveCommit(values.baseline), console.log) : undefined;
  const configs = values.configs.split(',').map((c) => c.trim()) as Config[];
  for (const config of configs)
    if (!(CONFIGS as readonly string[]).includes(config)) throw new Error(`--configs: unknown "${config}"`);
  const postgres = await ensurePostgres();
  console.log(
    `node ${process.version}; ${values.stock} units, ${values.people} people, ${values.bots} bots over ${values['bot-addresses']} addresses, pre-queue ${values['pre-queue-s']} s`,
  );
  console.log(
    '| run | config | people units (per account) | bot units (per account) | bot / person per account | bot share | people join → admission p95 | checks | load avg |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---:|---|---:|');
  for (let round = 1; round <= Number(values.runs); round++) {
    for (const config of configs) {
      const load = loadavg()[0];
      const result = await oneSale(config, postgres.url, values, entry);
      const p = result.populations!;
      const checks =
        result.invariants.every((i) => i.ok || i.severity !== 'error') && result.historyCheck?.ok ? 'pass' : 'FAIL';
      const ratio = p.botToPersonPerAccount === null ? '–' : `${p.botToPersonPerAccount.toFixed(2)}×`;
      console.log(
        `| ${round} | ${config} | ${p.people.units} (${p.people.unitsPerAccount.toFixed(3)}) | ${p.bots.units} (${p.bots.accounts ? p.bots.unitsPerAccount.toFixed(3) : '–'}) | ${ratio} | ${(100 * p.botShare).toFixed(1)}% | ${p.people.joinToAdmissionP95Ms ?? '–'} ms | ${checks} | ${load.toFixed(1)} |`,
      );
    }
  }
}

// Without a queue every account starts at once; a sale of this length sells out with room to spare.
const PLAIN_SALE_S = 30;

async function oneSale(
  config: Config,
  postgresUrl: string,
  values: Record<string, string | undefined>,
  entry: string | undefined,
): Promise<LoadTestResult> {
  const redis = await RedisServerProcess.start();
  const databaseUrl = await createDatabase(postgresUrl, 'flashsale_bots', true);
  const api = new ApiProcess({
    entry,
    port: await freePort(),
    env: {
      DATABASE_URL: await ownDatabaseAs(databaseUrl, 'flashsale_bench_app'),
      REDIS_URL: redis.url,
      JWT_SECRET: BENCH_SECRET,
      JWT_AUDIENCE: BENCH_AUDIENCE,
      REDIS_ALLOW_NO_AUTH: 'true',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      METRICS_PORT: String(await freePort()),
      DB_MIGRATE: 'true',
      ...(values['rate-limit-per-second'] ? { RATE_LIMIT_PER_SECOND: values['rate-limit-per-second'] } : {}),
      // The generator's loopback sources stand for a balancer: people are their source address,
      // a rotating bot the address it claims.
      ...(config === 'jpa3v6' ? { TRUST_PROXY: 'loopback' } : {}),
    },
  });
  await api.start();
  try {
    const preQueueS = Number(values['pre-queue-s']);
    const options: LoadTestOptions = {
      urls: [api.url],
      stock: Number(values.stock),
      users: Number(values.people),
      connections: Number(values.connections),
      ...(values['per-user-limit'] ? { perUserLimit: Number(values['per-user-limit']) } : {}),
      ...(config === 'plain'
        ? { durationS: PLAIN_SALE_S }
        : {
            durationS: preQueueS + 45,
            waitingRoom: true,
            admitPerSecond: Number(values['admit-per-second']),
            preQueueS,
          }),
      tokenSecret: BENCH_SECRET,
      tokenAudience: BENCH_AUDIENCE,
      reportDir: null,
      check: true,
      databaseUrl,
      ...(config === 'none' ? {} : { bots: Number(values.bots), botAddresses: Number(values['bot-addresses']) }),
      ...(config === 'jpa3' || config === 'jpa3v6' ? { joinsPerAddress: 3 } : {}),
      ...(config === 'jpa3v6' ? { botIpv6Rotation: true } : {}),
      ...(config === 'work' ? { joinWork: Number(values.squarings) } : {}),
    };
    return await runLoadTest(options);
  } finally {
    await api.stop();
    await redis.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
