import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, ApiRequest, ApiResponse, httpSender, Order, Product, withPg } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { adminAuth, algNoneToken, auth, bearer, expiredToken, forgedToken, tokenWithClaims } from '../support/tokens';
import { check, contractAnswers, sqlInvariants, Verdict } from './support/checks';
import { baseEnv, msUntilHealthy, startApi, stopAll } from './support/cluster';
import { saveResult } from './support/results';
import { answerFields, historyVerdicts } from './support/history';
import { contractViolation, isAnswer, outcomeOf, Recorder } from './support/traffic';

jest.setTimeout(180_000);

type Expect = [status: number | number[], code: string | string[]];
type Case = [name: string, request: ApiRequest, expected: Expect];

const json = { 'content-type': 'application/json' };
const TWO_MB = 'x'.repeat(2 * 1024 * 1024);

/** Everything here must be refused with its 4xx contract code, and change nothing. */
function hostile(p: Product, victimOrder: Order): Case[] {
  // A fresh attacker per request, so that the rate limit (tested by the flood) does not answer first.
  let n = 0;
  const buy = (payload: unknown, headers: Record<string, string> = auth(`attacker-${++n}`), productId = p.id): ApiRequest => ({ method: 'POST', url: `/products/${productId}/purchase`, headers: { ...json, ...headers }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
  const bad: Expect = [400, 'VALIDATION_FAILED'];
  const badId: Expect = [[400, 404], ['VALIDATION_FAILED', 'PRODUCT_NOT_FOUND', 'ORDER_NOT_FOUND', 'NOT_FOUND']];
  const unauth: Expect = [401, 'UNAUTHENTICATED'];
  const forbidden: Expect = [403, 'FORBIDDEN'];
  const get = (url: string, headers: Record<string, string> = auth(`attacker-${++n}`)): ApiRequest => ({ method: 'GET', url, headers });
  const o = victimOrder.id;
  const cases: Case[] = [
    ['quantity as string', buy({ quantity: '1' }), bad],
    ['quantity 0', buy({ quantity: 0 }), bad],
    ['quantity -1', buy({ quantity: -1 }), bad],
    ['quantity 1.5', buy({ quantity: 1.5 }), bad],
    ['quantity 1e308', buy('{"quantity": 1e308}'), bad],
    ['quantity 2^53+1', buy('{"quantity": 9007199254740993}'), bad],
    ['quantity 2^31', buy({ quantity: 2 ** 31 }), bad],
    ['quantity null', buy({ quantity: null }), bad],
    ['quantity true', buy({ quantity: true }), bad],
    ['quantity [1]', buy({ quantity: [1] }), bad],
    ['quantity {$gt:0}', buy({ quantity: { $gt: 0 } }), bad],
    ['extra field', buy({ quantity: 1, price: 0 }), bad],
    ['__proto__ pollution', buy('{"quantity": 1, "__proto__": {"isAdmin": true}}'), bad],
    ['constructor pollution', buy('{"quantity": 1, "constructor": {"prototype": {"role": "admin"}}}'), bad],
    ['SQL in quantity', buy({ quantity: "1; DROP TABLE orders; --" }), bad],
    ['fullwidth digit', buy({ quantity: '１' }), bad],
    ['body is an array', buy('[]'), bad],
    ['body is null', buy('null'), bad],
    ['body is a number', buy('7'), bad],
    ['truncated JSON', buy('{"quantity": 1'), bad],
    ['unquoted keys', buy('{quantity:1}'), bad],
    ['NaN', buy('{"quantity": NaN}'), bad],
    ['text/plain body', { method: 'POST', url: `/products/${p.id}/purchase`, headers: { ...auth('attacker'), 'content-type': 'text/plain' }, payload: 'quantity=1' }, [[400, 415], ['VALIDATION_FAILED', 'UNSUPPORTED_MEDIA_TYPE']]],
    ['2 MB purchase body', buy({ quantity: 1, pad: TWO_MB }), [413, 'PAYLOAD_TOO_LARGE']],
    ['2 MB admin body', { method: 'POST', url: '/admin/products', headers: { ...json, ...adminAuth() }, payload: JSON.stringify({ sku: 'BIG', name: TWO_MB, priceCents: 1, stock: 1 }) }, [413, 'PAYLOAD_TOO_LARGE']],
    ['idempotency key of 10k chars', buy({ quantity: 1 }, { ...auth('attacker'), 'idempotency-key': 'k'.repeat(10_000) }), bad],
    ['idempotency key reused for another request', buy({ quantity: 2 }, { ...auth('victim'), 'idempotency-key': 'victim-key' }), [422, 'IDEMPOTENCY_KEY_REUSED']],
    ['unknown product', buy({ quantity: 1 }, undefined, '987654'), [404, 'PRODUCT_NOT_FOUND']],
    ['id not a number', get('/products/abc'), badId],
    ['id SQL injection', get("/products/1'%20OR%20'1'='1"), badId],
    ['id negative', get('/products/-1'), badId],
    ['id zero', get('/products/0'), badId],
    ['id overflow', get('/products/99999999999999999999999999'), badId],
    ['id decimal', get('/products/1.5'), badId],
    ['id exponent', get('/products/1e3'), badId],
    ['id redis glob *', get('/products/*'), badId],
    ['id redis glob [a-z]*', get('/products/%5Ba-z%5D*'), badId],
    ['id redis glob ?', { method: 'POST', url: '/products/%3F/purchase', headers: { ...json, ...auth('attacker-glob') }, payload: '{"quantity":1}' }, badId],
    ['path traversal encoded', get('/products/..%2F..%2Fetc%2Fpasswd'), badId],
    ['path traversal in order id', get('/orders/%2e%2e%2f%2e%2e%2fadmin'), badId],
    ['order id not a number', get('/orders/abc'), badId],
    ['unicode id', get('/products/%F0%9F%94%A5'), badId],
    ['no token', buy({ quantity: 1 }, {}), unauth],
    ['empty bearer', buy({ quantity: 1 }, { authorization: 'Bearer ' }), unauth],
    ['basic auth', buy({ quantity: 1 }, { authorization: 'Basic YWRtaW46YWRtaW4=' }), unauth],
    ['forged signature (admin claim)', { method: 'POST', url: '/admin/products', headers: { ...json, ...bearer(forgedToken()) }, payload: JSON.stringify({ sku: 'FORGED', name: 'x', priceCents: 1, stock: 1 }) }, unauth],
    ['expired token', buy({ quantity: 1 }, bearer(expiredToken())), unauth],
    ['alg none admin', { method: 'PUT', url: `/admin/products/${p.id}/stock`, headers: { ...json, ...bearer(algNoneToken()) }, payload: '{"stock": 1000}' }, unauth],
    ['garbage token', buy({ quantity: 1 }, bearer('a.b.c')), unauth],
    ['8 KB token', buy({ quantity: 1 }, bearer('x'.repeat(8000))), unauth],
    ['role superadmin', { method: 'PUT', url: `/admin/products/${p.id}/stock`, headers: { ...json, ...bearer(tokenWithClaims({ sub: 'mallory', role: 'superadmin' })) }, payload: '{"stock": 1000}' }, [[401, 403], ['UNAUTHENTICATED', 'FORBIDDEN']]],
    ['empty sub', buy({ quantity: 1 }, bearer(tokenWithClaims({ sub: '', role: 'user' }))), unauth],
    ['sub as object', buy({ quantity: 1 }, bearer(tokenWithClaims({ sub: { $ne: null }, role: 'user' }))), unauth],
    ['user creates product', { method: 'POST', url: '/admin/products', headers: { ...json, ...auth('attacker') }, payload: JSON.stringify({ sku: 'ESC', name: 'x', priceCents: 1, stock: 1 }) }, forbidden],
    ['user sets stock', { method: 'PUT', url: `/admin/products/${p.id}/stock`, headers: { ...json, ...auth('attacker') }, payload: '{"stock": 1000}' }, forbidden],
    ['user sends role in body', { method: 'PUT', url: `/admin/products/${p.id}/stock`, headers: { ...json, ...auth('attacker') }, payload: '{"stock": 1000, "role": "admin"}' }, [[400, 403], ['VALIDATION_FAILED', 'FORBIDDEN']]],
    ["reads another user's order", get(`/orders/${o}`), forbidden],
    ["pays another user's order", { method: 'POST', url: `/orders/${o}/pay`, headers: auth('attacker') }, forbidden],
    ["cancels another user's order", { method: 'POST', url: `/orders/${o}/cancel`, headers: auth('attacker') }, forbidden],
    ["admin pays a user's order", { method: 'POST', url: `/orders/${o}/pay`, headers: adminAuth() }, forbidden],
    ['limit 501', get('/orders?limit=501'), bad],
    ['limit -1', get('/orders?limit=-1'), bad],
    ['limit abc', get('/orders?limit=abc'), bad],
    ['cursor injection', get("/orders?cursor=1'%3BDROP%20TABLE%20orders"), bad],
    ['status unknown', get('/orders?status=HACKED'), bad],
    ['productId glob', get('/orders?productId=*'), bad],
    ['unknown query field', get('/orders?userId=victim'), bad],
    ['admin: negative stock', { method: 'PUT', url: `/admin/products/${p.id}/stock`, headers: { ...json, ...adminAuth() }, payload: '{"stock": -1}' }, bad],
    ['admin: stock 1e10', { method: 'PUT', url: `/admin/products/${p.id}/stock`, headers: { ...json, ...adminAuth() }, payload: '{"stock": 1e10}' }, bad],
    ['admin: stock as string', { method: 'PUT', url: `/admin/products/${p.id}/stock`, headers: { ...json, ...adminAuth() }, payload: '{"stock": "10"}' }, bad],
    ['admin: stock of unknown product', { method: 'PUT', url: '/admin/products/987654/stock', headers: { ...json, ...adminAuth() }, payload: '{"stock": 5}' }, [404, 'PRODUCT_NOT_FOUND']],
    ['admin: price 1.5', { method: 'POST', url: '/admin/products', headers: { ...json, ...adminAuth() }, payload: JSON.stringify({ sku: 'P15', name: 'x', priceCents: 1.5, stock: 1 }) }, bad],
    ['admin: sku of 10k chars', { method: 'POST', url: '/admin/products', headers: { ...json, ...adminAuth() }, payload: JSON.stringify({ sku: 'S'.repeat(10_000), name: 'x', priceCents: 1, stock: 1 }) }, bad],
    ['admin: duplicate sku', { method: 'POST', url: '/admin/products', headers: { ...json, ...adminAuth() }, payload: JSON.stringify({ sku: p.sku, name: 'again', priceCents: 1, stock: 1 }) }, [409, 'DUPLICATE_SKU']],
    ['admin: sale ends before it starts', { method: 'POST', url: '/admin/products', headers: { ...json, ...adminAuth() }, payload: JSON.stringify({ sku: 'WIN', name: 'x', priceCents: 1, stock: 1, saleStartsAt: '2030-01-02T00:00:00Z', saleEndsAt: '2030-01-01T00:00:00Z' }) }, bad],
    ['admin: invalid date', { method: 'POST', url: '/admin/products', headers: { ...json, ...adminAuth() }, payload: JSON.stringify({ sku: 'DATE', name: 'x', priceCents: 1, stock: 1, saleStartsAt: 'yesterday' }) }, bad],
  ];
  return cases;
}

const SNAPSHOT_SQL = [
  `SELECT id, sku, name, price_cents, stock, supplied, per_user_limit, sale_starts_at, sale_ends_at FROM products ORDER BY id`,
  `SELECT id, product_id, user_id, quantity, status, idempotency_key, paid_at, closed_at FROM orders ORDER BY id`,
  `SELECT user_id, product_id, quantity FROM user_product_quota ORDER BY user_id, product_id`,
];

describe('chaos 7: abuse — malformed and hostile requests, a flooding user', () => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let api: ApiProcess;

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    api = await startApi('s7', 0, { ...baseEnv(db.url, redis.url), RATE_LIMIT_PER_SECOND: '5' });
  });

  afterAll(async () => {
    await stopAll([api]);
    await redis?.stop();
    await db?.drop();
  });

  it('refuses everything with a 4xx contract code, changes no data, stays healthy', async () => {
    const send = httpSender(api.url, 30_000);
    const client = new Api(send);
    const product = await client.createProduct({ stock: 10, perUserLimit: 2 });
    const rec = new Recorder();
    rec.track(product.id, { stock: 10, perUserLimit: 2 });
    // Purchases go into the history too, for the checker (the hostile requests change nothing: the snapshot says so).
    const purchase = async (user: string, options: { idempotencyKey?: string; quantity?: number } = {}): Promise<ApiResponse | Error> => {
      const invokeMs = Date.now();
      const res: ApiResponse | Error = await client.purchase(product.id, user, options).catch((e: Error) => e);
      const created = isAnswer(res) && res.status === 201;
      const purchaseId = isAnswer(res) ? res.headers['purchase-id'] : undefined;
      rec.history.add({ op: 'purchase', productId: product.id, userId: user, quantity: options.quantity ?? 1, key: options.idempotencyKey, invokeMs, completeMs: Date.now(), ...answerFields(res), ...(purchaseId ? { purchaseId } : {}), ...(created ? { orderId: String(res.body.id) } : {}) });
      return res;
    };
    const victim = await purchase('victim', { idempotencyKey: 'victim-key' });
    if (!isAnswer(victim)) throw victim;
    expect(victim.status).toBe(201);
    // The flooder already holds the per-user limit: every purchase it floods with is well formed
    // and could only be refused by Postgres, which is what the rate limit spares.
    const flooderHolds = await purchase('flooder', { quantity: 2 });
    expect(isAnswer(flooderHolds) && flooderHolds.status).toBe(201);
    // One query at a time: a pg client runs one anyway, and overlapping calls are deprecated.
    const snapshot = () =>
      withPg(db.url, async (pg) => {
        const rows: unknown[] = [];
        for (const q of SNAPSHOT_SQL) rows.push((await pg.query(q)).rows);
        return JSON.stringify(rows);
      });
    const before = await snapshot();

    rec.setPhase('hostile requests');
    const mismatches: string[] = [];
    const cases = hostile(product, victim.body);
    for (const [name, request, [status, code]] of cases) {
      const t0 = performance.now();
      const res = await send(request).catch((e: Error) => e);
      rec.record(res, performance.now() - t0);
      const statuses = ([] as number[]).concat(status);
      const codes = ([] as string[]).concat(code);
      const got = 'status' in res ? `${res.status} ${res.body?.code ?? res.raw.slice(0, 80)}` : `transport ${res.message}`;
      if (!('status' in res) || !statuses.includes(res.status) || !codes.includes(res.body?.code) || contractViolation(res)) mismatches.push(`${name}: got ${got}, want ${statuses.join('|')} ${codes.join('|')}`);
    }

    // One user floods purchases that could never succeed (it holds its per-user limit already):
    // the rate limit answers 429 with Retry-After; nothing else gives.
    rec.setPhase('one user floods (RATE_LIMIT_PER_SECOND=5)');
    const flood = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const t0 = performance.now();
        const res = await purchase('flooder', { quantity: 1 });
        return rec.record(res, performance.now() - t0);
      }),
    );
    const after = await snapshot();
    // The limit counts per user: the flooder's window does not stand in the legitimate user's way.
    rec.setPhase('after the abuse');
    const healthyMs = await msUntilHealthy([api.url], 10_000);
    const legit = await purchase('legit-user');
    rec.record(legit, 0);

    const floodOutcomes = flood.reduce<Record<string, number>>((acc, k) => ({ ...acc, [k]: (acc[k] ?? 0) + 1 }), {});
    const verdicts: Verdict[] = [
      check(`${cases.length} hostile requests answered with their 4xx contract code`, mismatches.length === 0 && cases.length >= 60, mismatches.length ? mismatches.join('; ') : `${cases.length} of ${cases.length} as expected`),
      check('flooding user rate-limited (429 + Retry-After), nothing else', (floodOutcomes['429 RATE_LIMITED'] ?? 0) > 0 && Object.keys(floodOutcomes).every((k) => k === '429 RATE_LIMITED' || k === '409 PER_USER_LIMIT'), JSON.stringify(floodOutcomes)),
      check('no data changed by the abuse (products, orders, quotas byte-identical)', before === after, before === after ? 'snapshot identical' : 'snapshot differs'),
      check('healthy after, and a legitimate purchase succeeds', healthyMs !== undefined && isAnswer(legit) && legit.status === 201, `/health 200 after ${healthyMs} ms; purchase ${outcomeOf(legit)}`),
      contractAnswers(rec.violations),
      ...(await sqlInvariants(db.url, rec.history)),
      ...(await historyVerdicts('s7-abuse', db.url, rec.history)).verdicts,
    ];
    saveResult({
      id: 's7-abuse',
      title: 'Abuse: malformed and hostile requests, a flooding user',
      setup: '1 API instance, 1 redis-server, RATE_LIMIT_PER_SECOND=5; a product of 10 units with one order of the victim',
      rec,
      faults: [`${cases.length} hostile requests (types, ranges, huge/fractional numbers, malformed JSON, 2 MB bodies, unicode, SQL and Redis-glob strings, path traversal, forged/expired/alg-none tokens, role escalation, other users' orders)`, '40 concurrent purchases by one user'],
      recovery: { '/health 200 after the abuse (ms)': healthyMs, 'legitimate purchase after': outcomeOf(legit) },
      verdicts,
      extra: { cases: cases.map(([n]) => n) },
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
