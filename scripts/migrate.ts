import { existsSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { loadConfig } from '../apps/api/src/config/app-config';
import { dataSourceOptions } from '../apps/api/src/database/data-source-options';
import { runMigrationsExclusively } from '../apps/api/src/database/run-migrations';

/** `npm run migration:run`: applies pending migrations to DATABASE_URL. */
async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const { database } = loadConfig();
  const dataSource = await new DataSource(dataSourceOptions(database.url, 2)).initialize();
  try {
    const applied = await runMigrationsExclusively(dataSource);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
