import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../../apps/api/src/database/data-source-options';
import { runMigrationsExclusively } from '../../../apps/api/src/database/run-migrations';
import { FinalOrder, OpRecord } from '../../../scripts/history/format';
import { CorpusCase } from '../corpus';

/** Builds the schema with the app's own migrations. */
export async function migrate(url: string): Promise<void> {
  const dataSource = await new DataSource(dataSourceOptions(url, 2)).initialize();
  try {
    await runMigrationsExclusively(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * A case moved to its own product and order ids (n * 1000 + ...) and users (`n:user`), so that
 * every case of the corpus fits one database.
 */
export function relocate(c: CorpusCase, n: number): CorpusCase {
  const product = (id: string) => String(n * 1000 + Number(id));
  const orderId = (id: string) => String(n * 1000 + Number(id));
  const user = (id: string) => `${n}:${id}`;
  const ops = c.ops.map((op) => {
    const moved = { ...op } as OpRecord & Record<string, unknown>;
    if ('productId' in op && op.productId !== undefined) moved.productId = product(op.productId);
    if ('userId' in op && op.userId !== undefined) moved.userId = user(op.userId);
    if ('orderId' in op && op.orderId !== undefined) moved.orderId = orderId(op.orderId);
    return moved as OpRecord;
  });
  const products = c.meta.products.map((p) => ({ ...p, productId: product(p.productId), ...(p.preexistingOrderIds ? { preexistingOrderIds: p.preexistingOrderIds.map(orderId) } : {}) }));
  const orders = c.orders.map((o) => ({ ...o, id: orderId(o.id), productId: product(o.productId), userId: user(o.userId) }));
  return { ...c, meta: { ...c.meta, products }, ops, orders };
}

const ts = (ms: number | null | undefined) => (typeof ms === 'number' ? new Date(ms).toISOString() : null);

/** Writes the cases' products and final orders as the app's tables hold them. */
export async function load(url: string, cases: CorpusCase[]): Promise<void> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    for (const c of cases) {
      for (const p of c.meta.products)
        await pg.query(`INSERT INTO products (id, sku, name, price_cents, stock, supplied, per_user_limit) VALUES ($1, $2, $2, 100, 0, 0, $3)`, [p.productId, `corpus-${p.productId}`, p.perUserLimit]);
      for (const o of c.orders as FinalOrder[])
        await pg.query(
          `INSERT INTO orders (id, product_id, user_id, quantity, status, idempotency_key, created_at, expires_at, paid_at, closed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [o.id, o.productId, o.userId, o.quantity, o.status, o.purchaseId, ts(o.createdAtMs), ts(o.expiresAtMs), ts(o.paidAtMs), ts(o.closedAtMs)],
        );
    }
  } finally {
    await pg.end();
  }
}
