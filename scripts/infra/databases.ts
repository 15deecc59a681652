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
