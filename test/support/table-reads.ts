import { Client } from 'pg';
import { eventually } from './api-client';

/** How often Postgres has read a table, by kind of scan (pg_stat_user_tables). */
export interface TableReads {
  seqScans: number;
  indexScans: number;
}

/**
 * The reads of `table` in database `database`, as Postgres counted them, once no session of that
 * database is left. A backend hands its counts to the shared statistics when its session ends
 * (and otherwise only when idle, up to 10 s later): close the app first, so that every read it
 * made is in the figures. Asked through the server's maintenance database, so that the question
 * itself is not counted.
 */
export async function tableReadsOnceIdle(database: string, table: string): Promise<TableReads> {
  const client = new Client({ connectionString: process.env.TEST_PG_SERVER_URL });
  await client.connect();
  try {
    await eventually(
      async () =>
        Number(
          (await client.query('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [database])).rows[0].n,
        ) === 0,
      10_000,
      50,
      `every session of ${database} to end`,
    );
    // The statistics of another database are read by connecting to it; a fresh session sees the flushed counts.
    const url = new URL(process.env.TEST_PG_SERVER_URL!);
    url.pathname = `/${database}`;
    const reader = new Client({ connectionString: url.toString() });
    await reader.connect();
    try {
      const { rows } = await reader.query(
        'SELECT seq_scan, coalesce(idx_scan, 0) AS idx_scan FROM pg_stat_user_tables WHERE relname = $1',
        [table],
      );
      return { seqScans: Number(rows[0].seq_scan), indexScans: Number(rows[0].idx_scan) };
    } finally {
      await reader.end();
    }
  } finally {
    await client.end();
  }
}
