import 'reflect-metadata';
import { createApp } from './bootstrap';
import { setUpApiDocs } from './http/api-docs';
import { ConfigError } from './config/env.schema';
import { loadConfig } from './config/app-config';
import { applyEnvFile, describeEnvFile } from './config/env-file';
import { installProcessGuards } from './process-guards';
import { opsListenerOf } from './metrics/ops-routes';
import { describeMigration, migrate } from './migrate-command';

async function main(): Promise<void> {
  // The environment wins over the file, and the file never sets NODE_ENV (see config/env-file.ts).
  const envFile = applyEnvFile('.env');
  if (envFile) process.stdout.write(`${describeEnvFile(envFile)}\n`);
  if (process.argv[2] === 'migrate') {
    // `node dist/apps/api/main.js migrate`: apply pending migrations and exit (a deploy step; see README "Deploying").
    process.stdout.write(`${describeMigration(await migrate())}\n`);
    return;
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const app = await createApp(config);
  installProcessGuards(app);
  // A global prefix or versioning goes here, as in any Nest app (`app.setGlobalPrefix('api')`,
  // `app.enableVersioning(...)`): routes are registered at listen, and the docs document the
  // paths as they stand when setUpApiDocs runs.
  setUpApiDocs(app, config.ops);
  // A flash sale opens thousands of connections at once; with Node's default accept backlog (511)
  // the kernel drops the overflow's handshakes and those buyers wait 1-3 s for a SYN retransmit
  // before the app sees them, past any deadline it keeps. The kernel caps this at somaxconn.
  await app.listen({ port: config.port, host: '0.0.0.0', backlog: 8192 }).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'EADDRINUSE'
      ? new Error(`PORT ${config.port} is already in use; set PORT to a free port`)
      : error;
  });
  process.stdout.write(`flash-sale api listening on ${await app.getUrl()}\n`);
  const opsPort = await opsListenerOf(app.getHttpAdapter().getInstance()).listen(config.ops.metricsHost);
  if (opsPort !== undefined) process.stdout.write(`flash-sale api: /metrics and /health/details on port ${opsPort}\n`);
}

main().catch((error: unknown) => {
  // Start-up itself failed (a port in use, say): say why and exit for the supervisor.
  process.stderr.write(`flash-sale api failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
