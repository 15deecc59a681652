import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../apps/api/src/bootstrap';
import { loadConfig } from '../../apps/api/src/config/app-config';
import { setUpApiDocs } from '../../apps/api/src/http/api-docs';

/**
 * One more instance of the app in this process, on a database and Redis the caller set up (see
 * app-harness.ts for one with its own). Closing it ends its database sessions, which is when
 * Postgres counts their reads (table-reads.ts).
 */
export async function startInstance(env: Record<string, string>): Promise<NestFastifyApplication> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const config = loadConfig(process.env);
    const app = await createApp(config);
    setUpApiDocs(app, config.ops);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    return app;
  } finally {
    process.env = saved;
  }
}
