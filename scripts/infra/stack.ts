import { freePort } from '../../test/support/free-port';
import { ApiProcess } from './api-process';
import { createDatabase } from './databases';
import { ensurePostgres } from './postgres';
import { RunningService } from './redis';
import { RedisTopology, startRedisTopology } from './redis-topology';

export interface Stack {
  databaseUrl: string;
  /** How the instances reach Redis (REDIS_MODE and its variables). */
  redisEnv: Record<string, string>;
  redisDescription: string;
  apis: ApiProcess[];
  stop(): Promise<void>;
}

export interface StackOptions {
  database: string;
  instances: number;
  env?: Record<string, string>;
  logDir?: string;
  /** Default standalone. */
  topology?: RedisTopology;
}

/**
 * Brings up what a run needs: Postgres and Redis (existing or private), a fresh database, and
 * N API instances. stop() undoes exactly what was started, in reverse.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const started: RunningService[] = [];
  const postgres = await ensurePostgres();
  started.push(postgres);
  const redis = await startRedisTopology(options.topology ?? 'standalone');
  started.push({ url: redis.description, private: true, stop: redis.stop });
  const databaseUrl = await createDatabase(postgres.url, options.database, true);
  const apis: ApiProcess[] = [];
  const stop = async () => {
    await Promise.all(apis.map((api) => api.stop()));
    for (const service of started.reverse()) await service.stop();
  };
  try {
    for (let i = 0; i < options.instances; i++) {
      const port = await freePort();
      const api = new ApiProcess({
        port,
        env: {
          DATABASE_URL: databaseUrl,
          ...redis.env,
          REDIS_KEY_PREFIX: `${options.database}:`,
          LOG_LEVEL: 'warn',
          ...options.env,
        },
        logFile: options.logDir ? `${options.logDir}/api-${i + 1}.log` : undefined,
      });
      apis.push(api);
      // The first instance migrates; the rest start in parallel once the schema exists.
      if (i === 0) await api.start();
    }
    await Promise.all(apis.slice(1).map((api) => api.start()));
  } catch (error) {
    await stop();
    throw error;
  }
  return { databaseUrl, redisEnv: redis.env, redisDescription: redis.description, apis, stop };
}
