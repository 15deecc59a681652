import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

// Any constant works; it only has to be the same in every instance of the app.
const MIGRATION_ADVISORY_LOCK = 7_216_001;

/**
 * Runs pending migrations while holding a Postgres advisory lock, so several instances starting
 * at once do not race on the same DDL.
 */
export async function runMigrationsExclusively(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_ADVISORY_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    // A session that cannot unlock is ending, which frees the lock; the caller hears the migrations' outcome.
    await runner
      .query('SELECT pg_advisory_unlock($1)', [MIGRATION_ADVISORY_LOCK])
      .catch((error: unknown) => new Logger('Migrations').warn(`advisory unlock failed: ${String(error)}`));
    await runner.release();
  }
}
