import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { adminAuth, auth } from './tokens';

/** The contract's Product and Order. */
export interface Product {
  id: string;
  sku: string;
  name: string;
  priceCents: number;
  stock: number;
  perUserLimit: number;
  saleStartsAt: string | null;
  saleEndsAt: string | null;
}

export type OrderStatus = 'PENDING_PAYMENT' | 'PAID' | 'CANCELLED' | 'EXPIRED';

export interface Order {
  id: string;
  productId: string;
  userId: string;
  quantity: number;
  status: OrderStatus;
  createdAt: string;
  expiresAt: string;
  paidAt: string | null;
  purchaseId: string | null;
}

export interface ContractError {
  statusCode: number;
  code: string;
  message: string;
}

export const PRODUCT_KEYS = ['id', 'name', 'perUserLimit', 'priceCents', 'saleEndsAt', 'saleStartsAt', 'sku', 'stock'];
export const ORDER_KEYS = ['createdAt', 'expiresAt', 'id', 'paidAt', 'productId', 'purchaseId', 'quantity', 'status', 'userId'];

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as is (set content-type yourself). */
  payload?: unknown;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | undefined>;
  raw: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: T;
}

export type Send = (request: ApiRequest) => Promise<ApiResponse>;

function parse(raw: string): any {
  try {
    return raw.length ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

function encode(request: ApiRequest): { headers: Record<string, string>; body?: string } {
  const headers = { ...(request.headers ?? {}) };
  if (request.payload === undefined) return { headers };
  if (typeof request.payload === 'string') return { headers, body: request.payload };
  const lower = Object.keys(headers).map((h) => h.toLowerCase());
  if (!lower.includes('content-type')) headers['content-type'] = 'application/json';
  return { headers, body: JSON.stringify(request.payload) };
}

/** Requests through Fastify's inject (no socket). */
export function injectSender(app: NestFastifyApplication): Send {
  return async (request) => {
    const { headers, body } = encode(request);
    const res = await app.inject({ method: request.method, url: request.url, headers, payload: body });
    const flat: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(res.headers)) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value);
    return { status: res.statusCode, headers: flat, raw: res.body, body: parse(res.body) };
  };
}

/** Requests over HTTP to a listening instance. */
export function httpSender(baseUrl: string, timeoutMs = 30_000): Send {
  return async (request) => {
    const { headers, body } = encode(request);
    const res = await fetch(`${baseUrl}${request.url}`, { method: request.method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
    const raw = await res.text();
    const flat: Record<string, string | undefined> = {};
    res.headers.forEach((value, name) => (flat[name.toLowerCase()] = value));
    return { status: res.status, headers: flat, raw, body: parse(raw) };
  };
}

let skuCounter = 0;
export const uniqueSku = (prefix = 'SKU'): string => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++skuCounter}`;

export interface CreateProductInput {
  sku?: string;
  name?: string;
  priceCents?: number;
  stock?: number;
  perUserLimit?: number;
  saleStartsAt?: string;
  saleEndsAt?: string;
}

export interface PurchaseOptions {
  quantity?: number;
  /** Sends no body at all (the default quantity applies). */
  noBody?: boolean;
  idempotencyKey?: string;
}

/** Typed helpers over one Send. */
export class Api {
  constructor(readonly send: Send) {}

  async createProduct(input: CreateProductInput = {}): Promise<Product> {
    const res = await this.createProductRaw(input);
    if (res.status !== 201) throw new Error(`createProduct: ${res.status} ${res.raw}`);
    return res.body as Product;
  }

  createProductRaw(input: CreateProductInput = {}, headers = adminAuth()): Promise<ApiResponse<Product>> {
    const payload = { sku: uniqueSku(), name: 'Test product', priceCents: 1999, stock: 10, perUserLimit: 1, ...input };
    return this.send({ method: 'POST', url: '/admin/products', headers, payload });
  }

  setStock(productId: string, stock: unknown, headers = adminAuth()): Promise<ApiResponse<Product>> {
    return this.send({ method: 'PUT', url: `/admin/products/${productId}/stock`, headers, payload: { stock } });
  }

  getProduct(productId: string, headers: Record<string, string> = {}): Promise<ApiResponse<Product>> {
    return this.send({ method: 'GET', url: `/products/${productId}`, headers });
  }

  purchase(productId: string, user: string, options: PurchaseOptions = {}): Promise<ApiResponse<Order>> {
    const headers: Record<string, string> = { ...auth(user) };
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    const payload = options.noBody ? undefined : { quantity: options.quantity ?? 1 };
    return this.send({ method: 'POST', url: `/products/${productId}/purchase`, headers, payload });
  }

  listOrders(headers: Record<string, string>, query: Record<string, string | number> = {}): Promise<ApiResponse<{ items: Order[]; nextCursor: string | null }>> {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return this.send({ method: 'GET', url: `/orders${qs ? `?${qs}` : ''}`, headers });
  }

  getOrder(orderId: string, headers: Record<string, string>): Promise<ApiResponse<Order>> {
    return this.send({ method: 'GET', url: `/orders/${orderId}`, headers });
  }

  pay(orderId: string, headers: Record<string, string>): Promise<ApiResponse<Order>> {
    return this.send({ method: 'POST', url: `/orders/${orderId}/pay`, headers });
  }

  cancel(orderId: string, headers: Record<string, string>): Promise<ApiResponse<Order>> {
    return this.send({ method: 'POST', url: `/orders/${orderId}/cancel`, headers });
  }
}

/** Jest assertion: the body is exactly the contract's error body. */
export function expectContractError(res: ApiResponse, status: number, code: string): void {
  const summary = `${res.status} ${res.raw.slice(0, 300)}`;
  expect({ status: res.status, code: res.body?.code, summary }).toEqual({ status, code, summary });
  expect(res.body).toEqual({ statusCode: status, code, message: expect.any(String) });
  expect(res.raw).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Retry-After (delta seconds) in ms, or undefined. */
export function retryAfterMs(res: ApiResponse): number | undefined {
  const value = res.headers['retry-after'];
  if (!value || !/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
  return Number(value) * 1000;
}

/**
 * The pause before retrying an answer that named Retry-After: never sooner (the instance that gave
 * it refuses an earlier purchase and may start the wait again), up to a fifth later, that jitter
 * capped at capMs.
 */
export const retryPauseMs = (hintedMs: number, capMs: number): number =>
  Math.max(hintedMs, Math.min(capMs, hintedMs) * (1 + Math.random() * 0.2));

export interface RetryOutcome<T = any> {
  final: ApiResponse<T>;
  attempts: number;
  /** Every answer, in order (503s included). */
  history: ApiResponse<T>[];
}

/**
 * Sends, retrying 503 (OVERLOADED / LOCK_TIMEOUT / DEPENDENCY_UNAVAILABLE) and 429 as the server's Retry-After
 * says (never sooner; up to a fifth later, that jitter capped), and transport errors with a short backoff;
 * bounded by maxAttempts. A purchase retried before its Retry-After is refused 429, wins nothing and starts
 * the wait again (docs/API.md).
 */
export async function withRetry<T>(send: () => Promise<ApiResponse<T>>, maxAttempts = 20, capMs = 2500): Promise<RetryOutcome<T>> {
  const history: ApiResponse<T>[] = [];
  for (let attempt = 1; ; attempt++) {
    let res: ApiResponse<T>;
    try {
      res = await send();
    } catch (error) {
      if (attempt >= maxAttempts) throw error;
      await sleep(Math.min(capMs, 100 * attempt));
      continue;
    }
    history.push(res);
    if ((res.status !== 503 && res.status !== 429) || attempt >= maxAttempts) return { final: res, attempts: attempt, history };
    const hinted = retryAfterMs(res) ?? 200;
    await sleep(retryPauseMs(hinted, capMs));
  }
}

/** Polls until `check` returns a truthy value, or throws after timeoutMs. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs: number, intervalMs = 250, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------------------------
// Invariants, by SQL.

export interface InvariantReport {
  productId: string;
  stock: number;
  supplied: number;
  perUserLimit: number;
  /** Σ quantity of PENDING_PAYMENT and PAID orders. */
  live: number;
  liveByUser: Record<string, number>;
  quotaByUser: Record<string, number>;
  ordersByStatus: Record<string, number>;
  violations: string[];
}

export async function withPg<T>(databaseUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The contract's invariants for one product, read straight from Postgres:
 * stock >= 0; supplied (initial + admin adjustments) = stock + Σ live quantity;
 * per user Σ live quantity <= per_user_limit; user_product_quota = Σ live quantity per user.
 */
export async function invariants(databaseUrl: string, productId: string): Promise<InvariantReport> {
  return withPg(databaseUrl, async (pg) => {
    // A segmented product's units live in its segment rows (products.stock stays 0).
    const products = await pg.query(
      `SELECT CASE WHEN p.segments > 1 THEN (SELECT COALESCE(SUM(s.stock), 0)::int FROM product_segments s WHERE s.product_id = p.id) ELSE p.stock END AS stock,
              p.supplied::bigint AS supplied, p.per_user_limit
         FROM products p WHERE p.id = $1`,
      [productId],
    );
    if (!products.rows.length) throw new Error(`invariants: no product ${productId}`);
    const { stock, supplied, per_user_limit: perUserLimit } = products.rows[0];
    const byUser = await pg.query(
      `SELECT user_id, COALESCE(SUM(quantity) FILTER (WHERE status IN ('PENDING_PAYMENT', 'PAID')), 0)::int AS live
         FROM orders WHERE product_id = $1 GROUP BY user_id`,
      [productId],
    );
    const byStatus = await pg.query('SELECT status, COUNT(*)::int AS n FROM orders WHERE product_id = $1 GROUP BY status', [productId]);
    const quota = await pg.query('SELECT user_id, quantity FROM user_product_quota WHERE product_id = $1', [productId]);
    const liveByUser: Record<string, number> = {};
    for (const row of byUser.rows) liveByUser[row.user_id] = Number(row.live);
    const quotaByUser: Record<string, number> = {};
    for (const row of quota.rows) quotaByUser[row.user_id] = Number(row.quantity);
    const ordersByStatus: Record<string, number> = {};
    for (const row of byStatus.rows) ordersByStatus[row.status] = Number(row.n);
    const live = Object.values(liveByUser).reduce((a, b) => a + b, 0);
    const violations: string[] = [];
    if (stock < 0) violations.push(`stock ${stock} < 0`);
    if (Number(supplied) !== stock + live) violations.push(`conservation: supplied ${supplied} != stock ${stock} + live ${live}`);
    for (const [user, units] of Object.entries(liveByUser)) {
      if (units > perUserLimit) violations.push(`user ${user} holds ${units} live units > perUserLimit ${perUserLimit}`);
    }
    for (const user of new Set([...Object.keys(liveByUser), ...Object.keys(quotaByUser)])) {
      const q = quotaByUser[user] ?? 0;
      const l = liveByUser[user] ?? 0;
      if (q !== l) violations.push(`quota row of ${user} is ${q}, live orders hold ${l}`);
    }
    return { productId, stock, supplied: Number(supplied), perUserLimit, live, liveByUser, quotaByUser, ordersByStatus, violations };
  });
}

/** Jest assertion: no invariant is violated; returns the report. */
export async function expectInvariants(databaseUrl: string, productId: string): Promise<InvariantReport> {
  const report = await invariants(databaseUrl, productId);
  expect(report.violations).toEqual([]);
  return report;
}

/** The orders with these ids that Postgres holds (durability of 201s). */
export async function ordersInDatabase(databaseUrl: string, ids: string[]): Promise<Map<string, { status: string; user_id: string; quantity: number }>> {
  return withPg(databaseUrl, async (pg) => {
    const rows = await pg.query('SELECT id::text AS id, status, user_id, quantity FROM orders WHERE id = ANY($1::bigint[])', [ids]);
    return new Map(rows.rows.map((r) => [r.id, { status: r.status, user_id: r.user_id, quantity: r.quantity }]));
  });
}
