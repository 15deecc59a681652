import { Client } from 'pg';

export interface LimitResult {
  transactionsPerSecond: number;
  transactions: number;
  seconds: number;
}

/**
 * The naive design's ceiling: one connection, one transaction per purchase on one hot row
 * (`UPDATE ... WHERE stock >= 1` + `INSERT` order), plain SQL, no HTTP, no lock.
 */
export async function measureLimit(databaseUrl: string, seconds: number): Promise<LimitResult> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `INSERT INTO products (sku, name, price_cents, stock, supplied, per_user_limit) VALUES ($1, 'limit row', 100, 1000000000, 1000000000, 1000000000) RETURNING id`,
      [`LIMIT-${Date.now()}`],
    );
    const productId = rows[0].id as string;
    let transactions = 0;
    const startedAt = performance.now();
    const deadline = startedAt + seconds * 1000;
    while (performance.now() < deadline) {
      await client.query('BEGIN');
      await client.query('UPDATE products SET stock = stock - 1 WHERE id = $1 AND stock >= 1', [productId]);
      await client.query(
        `INSERT INTO orders (product_id, user_id, quantity, status, expires_at) VALUES ($1, $2, 1, 'PENDING_PAYMENT', now() + interval '15 minutes')`,
        [productId, `limit-${transactions % 1000}`],
      );
      await client.query('COMMIT');
      transactions++;
    }
    const elapsedS = (performance.now() - startedAt) / 1000;
    // Leave the books balanced for the invariant check that follows every bench run.
    await client.query(`UPDATE products SET stock = supplied - (SELECT count(*) FROM orders WHERE product_id = $1) WHERE id = $1`, [productId]);
    return { transactionsPerSecond: transactions / elapsedS, transactions, seconds: elapsedS };
  } finally {
    await client.end();
  }
}
