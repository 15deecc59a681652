import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createDatabase, dropDatabase, ownDatabaseAs } from '../../scripts/infra/databases';

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

/**
 * A login role of its own (no superuser, a password of its own) that owns the database of
 * `databaseUrl` and its public schema, as deploy/postgres/app-role.sql sets up the API's role: a
 * URL a production-mode instance may use (production refuses postgres:postgres). `dropRole()`
 * after the database is dropped.
 */
export async function createOwnerRole(databaseUrl: string): Promise<{ url: string; role: string; dropRole(): Promise<void> }> {
  const role = `fs_role_${randomBytes(5).toString('hex')}`;
  const url = await ownDatabaseAs(databaseUrl, role);
  return {
    url,
    role,
    dropRole: async () => {
      const client = new Client({ connectionString: process.env.TEST_PG_SERVER_URL });
      await client.connect();
      try {
        await client.query(`DROP ROLE IF EXISTS ${role}`);
      } finally {
        await client.end();
      }
    },
  };
}
