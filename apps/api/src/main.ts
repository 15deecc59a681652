import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { createApp } from './bootstrap';
import { ConfigError } from './config/env.schema';
import { loadConfig } from './config/app-config';
import { installProcessGuards } from './process-guards';

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
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
  await app.listen(config.port, '0.0.0.0');
  process.stdout.write(`flash-sale api listening on ${await app.getUrl()}\n`);
}

main().catch((error: unknown) => {
  // Start-up itself failed (a port in use, say): say why and exit for the supervisor.
  process.stderr.write(`flash-sale api failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
