import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from './postgres';

/** Creates `name` on the server (dropping it first when `recreate`) and returns its URL. */
export async function createDatabase(serverUrl: string, name: string, recreate = false): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid database name: ${name}`);
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    if (recreate) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return withDatabase(serverUrl, name);
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * Makes `role` (created, or kept with a new password: a login role, no superuser) the owner of the
 * database of `databaseUrl` and of its public schema, as deploy/postgres/app-role.sql sets up the
 * API's role, and returns the database's URL for that role: one a production-mode instance may use
 * (production refuses postgres:postgres).
 */
export async function ownDatabaseAs(databaseUrl: string, role: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(role)) throw new Error(`invalid role name: ${role}`);
  const password = randomBytes(16).toString('hex');
  const database = new URL(databaseUrl).pathname.slice(1);
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
    await admin.query(
      `${exists ? 'ALTER' : 'CREATE'} ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${password}'`,
    );
    await admin.query(`ALTER DATABASE ${database} OWNER TO ${role}`);
    await admin.query(`ALTER SCHEMA public OWNER TO ${role}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}
