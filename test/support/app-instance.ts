import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../apps/api/src/bootstrap';
import { loadConfig } from '../../apps/api/src/config/app-config';

/**
 * One more instance of the app in this process, on a database and Redis the caller set up (see
 * app-harness.ts for one with its own). Closing it ends its database sessions, which is when
 * Postgres counts their reads (table-reads.ts).
 */
export async function startInstance(env: Record<string, string>): Promise<NestFastifyApplication> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const app = await createApp(loadConfig(process.env));
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    return app;
  } finally {
    process.env = saved;
  }
}
