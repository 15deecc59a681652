import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from './config/app-config';
import { dataSourceOptions } from './database/data-source-options';
import { runMigrationsExclusively } from './database/run-migrations';

/**
 * Applies pending migrations to DATABASE_URL and returns what it applied. The same code serves
 * `npm run migration:run` and `node dist/apps/api/main.js migrate` (the image's migration step:
 * the image has no dev dependencies and no sources). It needs the database settings only.
 */
export async function migrate(): Promise<string[]> {
  const database = loadDatabaseConfig();
  const dataSource = await new DataSource(dataSourceOptions(database.url, 2)).initialize();
  try {
    return await runMigrationsExclusively(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

export const describeMigration = (applied: string[]): string =>
  applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date';
