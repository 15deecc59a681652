import { ensurePostgres } from '../scripts/infra/postgres';
import { ensureRedisBinary } from '../scripts/infra/redis';

/**
 * Runs once before every suite: makes sure a Postgres server answers (the developer's, the
 * machine's, or a private one we start) and that redis-server exists. Suites create their own
 * databases and start their own redis-servers, so a developer's data is never touched.
 */
export default async function globalSetup(): Promise<void> {
  ensureRedisBinary();
  const postgres = await ensurePostgres(process.env.TEST_DATABASE_URL);
  process.env.TEST_PG_SERVER_URL = postgres.url;
  (globalThis as { __privatePostgres?: typeof postgres }).__privatePostgres = postgres.private ? postgres : undefined;
}
