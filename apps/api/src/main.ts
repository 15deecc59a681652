import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { createApp } from './bootstrap';
import { ConfigError } from './config/env.schema';
import { loadConfig } from './config/app-config';

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
  await app.listen(config.port, '0.0.0.0');
  process.stdout.write(`flash-sale api listening on ${await app.getUrl()}\n`);
}

void main();
