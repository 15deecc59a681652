import { existsSync } from 'node:fs';
import { ApiProcess } from '../../scripts/infra/api-process';
import { freePort } from './free-port';
import { RedisServerProcess } from './redis-server';
import { createOwnerRole, createTestDatabase } from './test-database';

/** The built API started as production runs it, on a database and redis-server of its own. */
export interface ProductionInstance {
  api: ApiProcess;
  /** The database as its superuser sees it: the test's ground truth. */
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts `dist/apps/api/main.js` with NODE_ENV=production (its database owned by a role of its
 * own, /metrics on a port of its own), the token settings `auth` names and any `env` beside them.
 */
export async function startProductionInstance(
  auth: { secret: string; audience: string },
  env: Record<string, string> = {},
): Promise<ProductionInstance> {
  if (!existsSync('dist/apps/api/main.js')) throw new Error('build first: npm run build (npm test does it)');
  const [redis, database] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
  const owner = await createOwnerRole(database.url);
  const api = new ApiProcess({
    port: await freePort(),
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: owner.url,
      REDIS_URL: redis.url,
      REDIS_ALLOW_NO_AUTH: 'true',
      JWT_SECRET: auth.secret,
      JWT_AUDIENCE: auth.audience,
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  const stop = async () => {
    await api.stop();
    await redis.stop();
    await database.drop();
    await owner.dropRole();
  };
  try {
    await api.start(60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { api, databaseUrl: database.url, stop };
}
