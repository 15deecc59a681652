import { parseArgs } from 'node:util';
import { runLoadTest } from '../loadtest';
import { createDatabase } from '../infra/databases';
import { ensurePostgres } from '../infra/postgres';
import { REDIS_TOPOLOGIES, RedisTopology, startRedisTopology } from '../infra/redis-topology';
import { TEST_JWT_SECRET } from '../../test/support/app-harness';
import { startApis } from '../../test/support/scale-sale';

/**
 * Purchases/s of one hot product with 1, 2 and 3 API instances (fresh database each time), for
 * docs/SCALING.md: `bash scripts/run-ts.sh scripts/scale/throughput.ts [--topology cluster]`.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      topology: { type: 'string', default: 'standalone' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '48' },
    },
  });
  const topology = values.topology as RedisTopology;
  if (!REDIS_TOPOLOGIES.includes(topology)) throw new Error(`--topology must be one of ${REDIS_TOPOLOGIES.join(', ')}`);
  const postgres = await ensurePostgres();
  const redis = await startRedisTopology(topology);
  try {
    for (const instances of [1, 2, 3]) {
      const databaseUrl = await createDatabase(postgres.url, `flashsale_scale_${instances}`, true);
      const apis = await startApis(instances, {
        DATABASE_URL: databaseUrl,
        ...redis.env,
        REDIS_KEY_PREFIX: `scale${instances}:`,
      });
      try {
        const result = await runLoadTest({
          urls: apis.map((api) => api.url),
          stock: 1_000_000,
          perUserLimit: 1000,
          users: 2000,
          connections: Number(values.connections),
          durationS: Number(values.seconds),
          tokenSecret: TEST_JWT_SECRET,
          reportDir: null,
        });
        const p = result.latency;
        console.log(
          `${topology} instances=${instances} purchases/s=${result.purchasesPerSecond.toFixed(0)} purchases=${result.purchases} p50=${p.p50}ms p99=${p.p99}ms ok=${result.ok}`,
        );
      } finally {
        await Promise.all(apis.map((api) => api.stop()));
      }
    }
  } finally {
    await redis.stop();
    await postgres.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
