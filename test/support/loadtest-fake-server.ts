import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A test double of the flash-sale API with only the routes the load-test tool uses. `oversell`
 * keeps selling once the stock is gone (stock stays at 0, orders keep coming): the kind of bug the
 * tool's audit must catch. `unavailableRate` answers that share of purchases 503 (`unavailableCode`,
 * LOCK_TIMEOUT by default) with Retry-After before doing anything, so retries and idempotency are
 * exercised. With OVERLOADED it also serves `/metrics` counting those refusals as the app does.
 */
export interface FakeServerOptions {
  secret: string;
  oversell?: boolean;
  unavailableRate?: number;
  retryAfterS?: number;
  unavailableCode?: 'LOCK_TIMEOUT' | 'OVERLOADED';
  /** Listeners sharing one state, like API instances sharing a database. Default 1. */
  instances?: number;
}

interface Product {
  id: string;
  sku: string;
  name: string;
  priceCents: number;
  stock: number;
  perUserLimit: number;
  saleStartsAt: null;
  saleEndsAt: null;
}

interface Order {
  id: string;
  productId: string;
  userId: string;
  quantity: number;
  status: 'PENDING_PAYMENT' | 'PAID' | 'CANCELLED' | 'EXPIRED';
  createdAt: string;
  expiresAt: string;
  paidAt: null;
}

export interface FakeServer {
  url: string;
  urls: string[];
  /** Purchase requests each instance received. */
  hitsPerInstance: number[];
  products: Map<string, Product>;
  orders: Order[];
  purchaseRequests: number;
  close(): Promise<void>;
}

function verify(secret: string, header: string | undefined): { sub: string; role: string } | undefined {
  const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  const [h, p, s] = token?.split('.') ?? [];
  if (!h || !p || !s) return undefined;
  const expected = createHmac('sha256', secret).update(`${h}.${p}`).digest();
  const given = Buffer.from(s, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { sub: string; role?: string; exp?: number };
  if (claims.exp !== undefined && claims.exp * 1000 < Date.now()) return undefined;
  return { sub: claims.sub, role: claims.role ?? 'user' };
}

export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  const instances = options.instances ?? 1;
  const state: Omit<FakeServer, 'url' | 'urls' | 'close'> = { products: new Map(), orders: [], purchaseRequests: 0, hitsPerInstance: Array<number>(instances).fill(0) };
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let nextId = 1;

  let refusedOverloaded = 0;
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, code: string, headers?: Record<string, string>): void =>
    send(res, status, { statusCode: status, code, message: code.toLowerCase().replace(/_/g, ' ') }, headers);

  const handle = (instance: number, req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const auth = verify(options.secret, req.headers.authorization);
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};

    if (req.method === 'POST' && url.pathname === '/admin/products') {
      if (!auth) return fail(res, 401, 'UNAUTHENTICATED');
      if (auth.role !== 'admin') return fail(res, 403, 'FORBIDDEN');
      if ([...state.products.values()].some((p) => p.sku === body.sku)) return fail(res, 409, 'DUPLICATE_SKU');
      const product: Product = {
        id: String(nextId++),
        sku: String(body.sku),
        name: String(body.name),
        priceCents: Number(body.priceCents),
        stock: Number(body.stock),
        perUserLimit: Number(body.perUserLimit ?? 1),
        saleStartsAt: null,
        saleEndsAt: null,
      };
      state.products.set(product.id, product);
      return send(res, 201, product);
    }
    if (req.method === 'GET' && url.pathname === '/metrics' && options.unavailableCode === 'OVERLOADED') {
      // Every purchase that went ahead "waited" under 5 ms: one histogram bucket.
      const waited = state.purchaseRequests - refusedOverloaded;
      const text = [
        `purchase_refused_total{reason="wait_estimate"} ${refusedOverloaded}`,
        `purchase_queue_wait_seconds_bucket{le="0.005"} ${waited}`,
        `purchase_queue_wait_seconds_bucket{le="+Inf"} ${waited}`,
        'purchase_deadline_misses_total 0',
      ].join('\n');
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      return void res.end(`${text}\n`);
    }
    const productMatch = /^\/products\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && productMatch) {
      const product = state.products.get(productMatch[1]);
      return product ? send(res, 200, product) : fail(res, 404, 'PRODUCT_NOT_FOUND');
    }
    const purchaseMatch = /^\/products\/([^/]+)\/purchase$/.exec(url.pathname);
    if (req.method === 'POST' && purchaseMatch) {
      state.purchaseRequests++;
      state.hitsPerInstance[instance]++;
      if (!auth) return fail(res, 401, 'UNAUTHENTICATED');
      if (Math.random() < (options.unavailableRate ?? 0)) {
        if (options.unavailableCode === 'OVERLOADED') refusedOverloaded++;
        return fail(res, 503, options.unavailableCode ?? 'LOCK_TIMEOUT', { 'retry-after': String(options.retryAfterS ?? 0) });
      }
      const key = req.headers['idempotency-key'];
      const cacheKey = typeof key === 'string' ? `${auth.sub}:${key}` : undefined;
      const replay = cacheKey ? idempotent.get(cacheKey) : undefined;
      if (replay) return send(res, replay.status, replay.body);
      const product = state.products.get(purchaseMatch[1]);
      if (!product) return fail(res, 404, 'PRODUCT_NOT_FOUND');
      const quantity = Number(body.quantity ?? 1);
      const live = state.orders.filter((o) => o.productId === product.id && o.userId === auth.sub && o.status === 'PENDING_PAYMENT');
      const held = live.reduce((sum, o) => sum + o.quantity, 0);
      let answer: { status: number; body: unknown };
      if (held + quantity > product.perUserLimit) {
        answer = { status: 409, body: { statusCode: 409, code: 'PER_USER_LIMIT', message: 'limit' } };
      } else if (product.stock < quantity && !options.oversell) {
        answer = { status: 409, body: { statusCode: 409, code: 'SOLD_OUT', message: 'sold out' } };
      } else {
        product.stock = Math.max(0, product.stock - quantity);
        const now = new Date();
        const order: Order = {
          id: String(nextId++),
          productId: product.id,
          userId: auth.sub,
          quantity,
          status: 'PENDING_PAYMENT',
          createdAt: now.toISOString(),
          expiresAt: new Date(now.getTime() + 900_000).toISOString(),
          paidAt: null,
        };
        state.orders.push(order);
        answer = { status: 201, body: order };
      }
      if (cacheKey) idempotent.set(cacheKey, answer);
      return send(res, answer.status, answer.body);
    }
    if (req.method === 'GET' && url.pathname === '/orders') {
      if (!auth) return fail(res, 401, 'UNAUTHENTICATED');
      const productId = url.searchParams.get('productId');
      const limit = Math.min(500, Number(url.searchParams.get('limit') ?? 50));
      const offset = Number(url.searchParams.get('cursor') ?? 0);
      const visible = state.orders
        .filter((o) => (!productId || o.productId === productId) && (auth.role === 'admin' || o.userId === auth.sub))
        .reverse();
      const items = visible.slice(offset, offset + limit);
      return send(res, 200, { items, nextCursor: offset + limit < visible.length ? String(offset + limit) : null });
    }
    return fail(res, 404, 'NOT_FOUND');
  };

  const servers: Server[] = Array.from({ length: instances }, (_, instance) =>
    createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk));
      // A little latency, so that requests overlap as they would against a real server.
      req.on('end', () => setTimeout(() => handle(instance, req, res, raw), Math.random() * 3));
    }),
  );
  const urls = await Promise.all(
    servers.map(
      (server) =>
        new Promise<string>((resolve) =>
          server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
        ),
    ),
  );
  return Object.assign(state, {
    url: urls[0],
    urls,
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      ).then(() => undefined),
  });
}
