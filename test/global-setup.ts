import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { ensurePostgres } from '../scripts/infra/postgres';
import { ensureRedisBinary } from '../scripts/infra/redis';

/**
 * Runs once before every suite: makes sure a Postgres server answers (the developer's, the
 * machine's, or a private one we start) and that redis-server exists. Suites create their own
 * databases and start their own redis-servers, so a developer's data is never touched.
 */
export default async function globalSetup(): Promise<void> {
  // What a test, or a process it starts, puts in "the temp folder" (a browser profile, a scratch
  // file) lands in the project's ignored .infra/tmp instead of the system's: a test run leaves
  // nothing outside the project. SYSTEM_TMPDIR keeps the real one for tests that check it.
  process.env.SYSTEM_TMPDIR ??= tmpdir();
  const projectTmp = resolve(__dirname, '..', '.infra', 'tmp');
  mkdirSync(projectTmp, { recursive: true });
  process.env.TMPDIR = projectTmp;
  ensureRedisBinary();
  const postgres = await ensurePostgres(process.env.TEST_DATABASE_URL);
  process.env.TEST_PG_SERVER_URL = postgres.url;
  (globalThis as { __privatePostgres?: typeof postgres }).__privatePostgres = postgres.private ? postgres : undefined;
}
