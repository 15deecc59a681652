import { Client } from 'pg';

export interface LimitResult {
  transactionsPerSecond: number;
  transactions: number;
  seconds: number;
}

/**
 * The naive design's ceiling: one connection, one transaction per purchase on one hot row
 * (`UPDATE ... WHERE stock >= 1` + `INSERT` order), plain SQL, no HTTP, no lock. Runs in slices
 * (`run`), so that it can take turns with the load it is compared with.
 */
export class LimitProbe {
  private transactions = 0;
  private elapsedMs = 0;
  private session?: { client: Client; productId: string };

  /** Connects on the first slice: the schema exists only once the first API instance migrated it. */
  constructor(private readonly databaseUrl: string) {}

  /** One slice of serialized purchase transactions. */
  async run(seconds: number): Promise<void> {
    this.session ??= await this.open();
    const { client, productId } = this.session;
    const startedAt = performance.now();
    const deadline = startedAt + seconds * 1000;
    while (performance.now() < deadline) {
      await client.query('BEGIN');
      await client.query('UPDATE products SET stock = stock - 1 WHERE id = $1 AND stock >= 1', [productId]);
      await client.query(
        `INSERT INTO orders (product_id, user_id, quantity, status, expires_at) VALUES ($1, $2, 1, 'PENDING_PAYMENT', now() + interval '15 minutes')`,
        [productId, `limit-${this.transactions % 1000}`],
      );
      await client.query('COMMIT');
      this.transactions++;
    }
    this.elapsedMs += performance.now() - startedAt;
  }

  /** The rate over every slice; leaves the books balanced for the invariant check that follows. */
  async close(): Promise<LimitResult> {
    const seconds = this.elapsedMs / 1000;
    const result = { transactionsPerSecond: seconds > 0 ? this.transactions / seconds : 0, transactions: this.transactions, seconds };
    if (!this.session) return result;
    const { client, productId } = this.session;
    try {
      await client.query(`UPDATE products SET stock = supplied - (SELECT count(*) FROM orders WHERE product_id = $1) WHERE id = $1`, [productId]);
      return result;
    } finally {
      await client.end();
    }
  }

  private async open(): Promise<{ client: Client; productId: string }> {
    const client = new Client({ connectionString: this.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        `INSERT INTO products (sku, name, price_cents, stock, supplied, per_user_limit) VALUES ($1, 'limit row', 100, 1000000000, 1000000000, 1000000000) RETURNING id`,
        [`LIMIT-${Date.now()}`],
      );
      return { client, productId: rows[0].id as string };
    } catch (error) {
      await client.end();
      throw error;
    }
  }
}
