import { existsSync } from 'node:fs';
import { describeMigration, migrate } from '../apps/api/src/migrate-command';

/** `npm run migration:run`: applies pending migrations to DATABASE_URL. */
async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  console.log(describeMigration(await migrate()));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
