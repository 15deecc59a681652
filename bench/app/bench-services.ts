import { createDatabase } from '../../scripts/infra/databases';
import { ensurePostgres } from '../../scripts/infra/postgres';
import { RedisServerProcess } from '../../test/support/redis-server';
import { ensureSs } from './accept-queue';
import { CpuBenchEnv } from './cpu-cells';
import { ensureWrk, raiseOpenFileLimit } from './wrk';

/** What a series script chooses of its cells' environment; the services are started for it. */
export type BenchLoad = Omit<CpuBenchEnv, 'databaseUrl' | 'redisUrl' | 'redisPid'>;

/**
 * The tools and services a series of app cells needs (wrk, ss, the open-file limit, Postgres with
 * a fresh bench database, a private redis-server), and the cells' environment on them. `stop`
 * ends the redis-server; the database stays for the next run to recreate.
 */
export async function startBenchServices(load: BenchLoad): Promise<{ env: CpuBenchEnv; stop(): Promise<void> }> {
  ensureWrk();
  ensureSs();
  raiseOpenFileLimit();
  const postgres = await ensurePostgres();
  const redis = await RedisServerProcess.start();
  const env: CpuBenchEnv = {
    databaseUrl: await createDatabase(postgres.url, 'flashsale_bench', true),
    redisUrl: redis.url,
    redisPid: redis.pid!,
    ...load,
  };
  return { env, stop: () => redis.stop() };
}
