import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../apps/api/src/bootstrap';
import { loadConfig } from '../../apps/api/src/config/app-config';
import { setUpApiDocs } from '../../apps/api/src/http/api-docs';
import { freePort } from './free-port';
import { RedisServerProcess } from './redis-server';
import { createTestDatabase, TestDatabase } from './test-database';

export const TEST_JWT_SECRET = 'test-secret-at-least-16-chars';

/** What a team's main.ts does between createApp and listen: `app.setGlobalPrefix('api')`, say. */
export type ConfigureApp = (app: NestFastifyApplication) => void;

export interface AppHarness {
  app: NestFastifyApplication;
  redis: RedisServerProcess;
  database: TestDatabase;
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Boots the real app in this process against its own database and redis-server. `databaseUrl`
 * may route the app's connections elsewhere (through a fault-injecting proxy, say); `configure`
 * runs where main.ts would set a global prefix or versioning.
 */
export async function startApp(extraEnv: Record<string, string> = {}, databaseUrl?: (url: string) => Promise<string>, configure?: ConfigureApp): Promise<AppHarness> {
  const [redis, database] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl ? await databaseUrl(database.url) : database.url,
    REDIS_URL: redis.url,
    JWT_SECRET: TEST_JWT_SECRET,
    ...extraEnv,
  };
  const app = await startInstance(env, configure);
  return {
    app,
    redis,
    database,
    env,
    close: async () => {
      await app.close();
      await redis.stop();
      await database.drop();
    },
  };
}

/**
 * One more instance of the app in this process, on the database and Redis that `env` names (a
 * harness's `env`, say): for a suite that runs instances one after another on the same data.
 */
export async function startInstance(env: Record<string, string>, configure?: ConfigureApp): Promise<NestFastifyApplication> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    // In main.ts's order: build, mount, document, then start.
    const config = loadConfig(process.env);
    const app = await createApp(config);
    configure?.(app);
    setUpApiDocs(app, config.ops);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    return app;
  } finally {
    process.env = saved;
  }
}

/**
 * Serves `app` over HTTP on a free loopback port, for clients that need a real socket (the load
 * test, the operator scripts) rather than `inject`; resolves to its base URL.
 */
export async function listenOnLoopback(app: NestFastifyApplication): Promise<string> {
  const port = await freePort();
  await app.listen(port, '127.0.0.1');
  return `http://127.0.0.1:${port}`;
}
