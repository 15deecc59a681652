import { randomBytes } from 'node:crypto';
import { createDatabase, dropDatabase } from '../../scripts/infra/databases';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of its own for one suite. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = process.env.TEST_PG_SERVER_URL;
  if (!server) throw new Error('TEST_PG_SERVER_URL is not set: run the suites through jest (test/global-setup.ts)');
  const name = `fs_test_${randomBytes(5).toString('hex')}`;
  const url = await createDatabase(server, name, true);
  return { url, name, drop: () => dropDatabase(server, name) };
}
