import { Client } from 'pg';
import { ApiClient, ContractOrder } from '../loadtest/api-client';
import { mintToken, TokenClaims } from '../loadtest/jwt';
import { FinalOrder } from './format';

/**
 * Where the final orders come from. Through the API, the checker signs itself a short admin token
 * with the deployment's `iss` / `aud` (production refuses a token without an audience).
 */
export type FinalStateSource = { databaseUrl: string } | { url: string; tokenSecret: string; claims?: TokenClaims };

/** Long enough to page through every order of a big sale; short enough for any JWT_MAX_AGE_S (at least 60 s). */
const CHECKER_TOKEN_TTL_S = 60;

/**
 * Every order of the products, read once: straight from Postgres (with the database's own record
 * of when each was paid and closed), or through the admin API's GET /orders pages.
 */
export async function readFinalOrders(productIds: string[], source: FinalStateSource): Promise<FinalOrder[]> {
  if ('databaseUrl' in source) return fromPostgres(productIds, source.databaseUrl);
  const api = new ApiClient(
    source.url.replace(/\/+$/, ''),
    mintToken(source.tokenSecret, 'history-checker', 'admin', CHECKER_TOKEN_TTL_S, source.claims),
  );
  const orders: FinalOrder[] = [];
  for (const productId of productIds) orders.push(...(await api.listOrders(productId)).map(fromView));
  return orders;
}

async function fromPostgres(productIds: string[], databaseUrl: string): Promise<FinalOrder[]> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query(
      `SELECT id::text AS id, product_id::text AS product_id, user_id, quantity, status, idempotency_key,
              (extract(epoch FROM created_at) * 1000)::float8 AS created_ms, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms,
              (extract(epoch FROM paid_at) * 1000)::float8 AS paid_ms, (extract(epoch FROM closed_at) * 1000)::float8 AS closed_ms
         FROM orders WHERE product_id = ANY($1::bigint[])`,
      [productIds],
    );
    return rows.map((r) => ({
      id: r.id,
      productId: r.product_id,
      userId: r.user_id,
      quantity: Number(r.quantity),
      status: r.status,
      purchaseId: r.idempotency_key,
      createdAtMs: Number(r.created_ms),
      expiresAtMs: Number(r.expires_ms),
      paidAtMs: r.paid_ms === null ? null : Number(r.paid_ms),
      closedAtMs: r.closed_ms === null ? null : Number(r.closed_ms),
    }));
  } finally {
    await pg.end();
  }
}

function fromView(o: ContractOrder): FinalOrder {
  if (o.createdAt === undefined || o.expiresAt === undefined || o.purchaseId === undefined)
    throw new Error(
      `GET /orders: order ${o.id} lacks createdAt, expiresAt or purchaseId; the checker needs the contract's full Order`,
    );
  return {
    id: String(o.id),
    productId: String(o.productId),
    userId: o.userId,
    quantity: o.quantity,
    status: o.status,
    purchaseId: o.purchaseId,
    createdAtMs: Date.parse(o.createdAt),
    expiresAtMs: Date.parse(o.expiresAt),
    // The API shows when an order was paid, not when it was closed.
    ...(o.paidAt !== undefined ? { paidAtMs: o.paidAt === null ? null : Date.parse(o.paidAt) } : {}),
  };
}
