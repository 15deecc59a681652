/*
 * One API instance as production runs it, for measuring the load test against (docs/LOADTEST.md,
 * "What the generator costs"): NODE_ENV=production on a fresh database owned by a role of its own,
 * the running Redis, a random secret and audience, /metrics on its own port. Prints the flags that
 * point `npm run loadtest` at it and its pid, then serves until Ctrl-C (or SIGTERM) and drops the
 * database.
 *
 *   npm run build && bash scripts/run-ts.sh scripts/loadtest/production-target.ts [--port 3100]
 *     [--database-url postgres://postgres@127.0.0.1:5432/postgres] [--redis-url redis://127.0.0.1:6379] [--entry main.js]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ApiProcess } from '../infra/api-process';
import { createDatabase, dropDatabase, ownDatabaseAs } from '../infra/databases';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '3100' },
      'metrics-port': { type: 'string' },
      'database-url': {
        type: 'string',
        default: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
      },
      'redis-url': { type: 'string', default: process.env.REDIS_URL || 'redis://127.0.0.1:6379' },
      // Another build's bundle (e.g. an earlier commit's dist/apps/api/main.js); this checkout's by default.
      entry: { type: 'string' },
    },
  });
  const port = Number(values.port);
  const metricsPort = Number(values['metrics-port'] ?? port + 1);
  const name = `flashsale_loadtarget_${Date.now().toString(36)}`;
  const databaseUrl = await createDatabase(values['database-url']!, name);
  const secret = randomBytes(32).toString('hex');
  const audience = 'flash-sale-loadtest';
  const api = new ApiProcess({
    port,
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: await ownDatabaseAs(databaseUrl, 'flashsale_loadtarget'),
      REDIS_URL: values['redis-url']!,
      // The local redis-server has no password: said on purpose, as production requires.
      REDIS_ALLOW_NO_AUTH: 'true',
      JWT_SECRET: secret,
      JWT_AUDIENCE: audience,
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
    },
    entry: values.entry,
  });
  await api.start(60_000);
  console.log(`pid ${api.pid}; point the load test at it with:`);
  console.log(
    `  --url ${api.url} --metrics-url ${api.metricsUrl} --token-secret ${secret} --token-audience ${audience}`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await api.stop();
  await dropDatabase(values['database-url']!, name);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
