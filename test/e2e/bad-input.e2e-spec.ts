/**
 * A table of bad inputs: each must get a 4xx with the contract's code and body, never a 5xx, and
 * none may change the database.
 */
import { AppHarness, startApp } from '../support/app-harness';
import { Api, ApiRequest, expectContractError, injectSender, Order, Product, withPg } from '../support/api-client';
import { adminAuth, algNoneToken, auth, bearer, expiredToken, forgedToken, tokenWithClaims } from '../support/tokens';

jest.setTimeout(60_000);

interface Case {
  name: string;
  request: () => ApiRequest;
  status: number;
  code: string;
  /** Other (status, code) pairs the contract also allows for this input. */
  alternatives?: [number, string][];
}

let product: Product;
let order: Order;
let userN = 0;
/** A fresh user per case, so no case is refused for another case's purchase or rate. */
const freshUser = () => auth(`bad-input-user-${++userN}`);
const json = { 'content-type': 'application/json' };

const validProduct = () => ({ sku: `BAD-${Date.now().toString(36)}-${++userN}`, name: 'x', priceCents: 100, stock: 5 });
const createProduct = (payload: unknown, headers: Record<string, string> = adminAuth()): ApiRequest => ({ method: 'POST', url: '/admin/products', headers, payload });
const purchase = (payload: unknown, headers: Record<string, string> = freshUser(), id = product.id): ApiRequest => ({ method: 'POST', url: `/products/${id}/purchase`, headers, payload });
const raw = (method: ApiRequest['method'], url: string, body: string, headers: Record<string, string>): ApiRequest => ({ method, url, headers, payload: body });
const listOrders = (qs: string, headers: Record<string, string> = freshUser()): ApiRequest => ({ method: 'GET', url: `/orders?${qs}`, headers });
const setStock = (payload: unknown, id = product.id, headers: Record<string, string> = adminAuth()): ApiRequest => ({ method: 'PUT', url: `/admin/products/${id}/stock`, headers, payload });

const VF = 'VALIDATION_FAILED';
const CASES: Case[] = [
  // admin create: types, ranges, missing and extra fields, body shapes
  { name: 'create: priceCents as a string', request: () => createProduct({ ...validProduct(), priceCents: '100' }), status: 400, code: VF },
  { name: 'create: stock as a float', request: () => createProduct({ ...validProduct(), stock: 1.5 }), status: 400, code: VF },
  { name: 'create: negative stock', request: () => createProduct({ ...validProduct(), stock: -1 }), status: 400, code: VF },
  { name: 'create: huge stock (1e12)', request: () => createProduct({ ...validProduct(), stock: 1e12 }), status: 400, code: VF },
  { name: 'create: priceCents beyond int32', request: () => createProduct({ ...validProduct(), priceCents: 2 ** 31 }), status: 400, code: VF },
  { name: 'create: missing sku', request: () => createProduct({ name: 'x', priceCents: 1, stock: 1 }), status: 400, code: VF },
  { name: 'create: extra field', request: () => createProduct({ ...validProduct(), isAdmin: true }), status: 400, code: VF },
  { name: 'create: sku as a number', request: () => createProduct({ ...validProduct(), sku: 12345 }), status: 400, code: VF },
  { name: 'create: SQL in sku', request: () => createProduct({ ...validProduct(), sku: "x'; DROP TABLE products;--" }), status: 400, code: VF },
  { name: 'create: empty name', request: () => createProduct({ ...validProduct(), name: '' }), status: 400, code: VF },
  { name: 'create: perUserLimit 0', request: () => createProduct({ ...validProduct(), perUserLimit: 0 }), status: 400, code: VF },
  { name: 'create: saleStartsAt not a date', request: () => createProduct({ ...validProduct(), saleStartsAt: 'tomorrow' }), status: 400, code: VF },
  { name: 'create: saleEndsAt before saleStartsAt', request: () => createProduct({ ...validProduct(), saleStartsAt: '2030-01-02T00:00:00Z', saleEndsAt: '2030-01-01T00:00:00Z' }), status: 400, code: VF },
  { name: 'create: body is an array', request: () => createProduct([validProduct()]), status: 400, code: VF },
  { name: 'create: body is null', request: () => raw('POST', '/admin/products', 'null', { ...adminAuth(), ...json }), status: 400, code: VF },
  { name: 'create: malformed JSON', request: () => raw('POST', '/admin/products', '{"sku": "A", "name": ', { ...adminAuth(), ...json }), status: 400, code: VF },
  { name: 'create: nested object for priceCents', request: () => createProduct({ ...validProduct(), priceCents: { $gt: 0 } }), status: 400, code: VF },
  {
    name: 'create: wrong content-type (application/xml)',
    request: () => raw('POST', '/admin/products', '<product><sku>A</sku></product>', { ...adminAuth(), 'content-type': 'application/xml' }),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    alternatives: [[400, VF]],
  },
  // admin set stock
  { name: 'set stock: stock as a string', request: () => setStock({ stock: '5' }), status: 400, code: VF },
  { name: 'set stock: negative', request: () => setStock({ stock: -5 }), status: 400, code: VF },
  { name: 'set stock: missing', request: () => setStock({}), status: 400, code: VF },
  { name: 'set stock: null', request: () => setStock({ stock: null }), status: 400, code: VF },
  { name: 'set stock: non-numeric id', request: () => setStock({ stock: 5 }, 'abc'), status: 400, code: VF },
  { name: 'set stock: negative id', request: () => setStock({ stock: 5 }, '-1'), status: 400, code: VF },
  { name: 'set stock: id beyond bigint', request: () => setStock({ stock: 5 }, '99999999999999999999'), status: 400, code: VF },
  // purchase body
  { name: 'purchase: quantity as a string', request: () => purchase({ quantity: '1' }), status: 400, code: VF },
  { name: 'purchase: quantity 0', request: () => purchase({ quantity: 0 }), status: 400, code: VF },
  { name: 'purchase: negative quantity', request: () => purchase({ quantity: -3 }), status: 400, code: VF },
  { name: 'purchase: float quantity', request: () => purchase({ quantity: 1.5 }), status: 400, code: VF },
  { name: 'purchase: huge quantity', request: () => purchase({ quantity: 1e15 }), status: 400, code: VF },
  { name: 'purchase: quantity null (wrong type, not "absent")', request: () => purchase({ quantity: null }), status: 400, code: VF },
  { name: 'purchase: quantity as a boolean', request: () => purchase({ quantity: true }), status: 400, code: VF },
  { name: 'purchase: extra field', request: () => purchase({ quantity: 1, priceCents: 0 }), status: 400, code: VF },
  { name: 'purchase: body is an array', request: () => purchase([{ quantity: 1 }]), status: 400, code: VF },
  { name: 'purchase: body is a JSON string', request: () => raw('POST', `/products/${product.id}/purchase`, '"1"', { ...freshUser(), ...json }), status: 400, code: VF },
  { name: 'purchase: body is null', request: () => raw('POST', `/products/${product.id}/purchase`, 'null', { ...freshUser(), ...json }), status: 400, code: VF },
  { name: 'purchase: malformed JSON', request: () => raw('POST', `/products/${product.id}/purchase`, '{"quantity": ', { ...freshUser(), ...json }), status: 400, code: VF },
  {
    name: 'purchase: wrong content-type (text/plain)',
    request: () => raw('POST', `/products/${product.id}/purchase`, 'quantity=1', { ...freshUser(), 'content-type': 'text/plain' }),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    alternatives: [[400, VF]],
  },
  // purchase: ids and Idempotency-Key
  { name: 'purchase: non-numeric id', request: () => purchase({ quantity: 1 }, freshUser(), 'abc'), status: 400, code: VF },
  { name: 'purchase: id 0', request: () => purchase({ quantity: 1 }, freshUser(), '0'), status: 400, code: VF },
  { name: 'purchase: id with a fraction', request: () => purchase({ quantity: 1 }, freshUser(), '1.5'), status: 400, code: VF },
  { name: 'purchase: Idempotency-Key of 129 chars', request: () => purchase({ quantity: 1 }, { ...freshUser(), 'idempotency-key': 'k'.repeat(129) }), status: 400, code: VF },
  { name: 'purchase: Idempotency-Key with spaces and !', request: () => purchase({ quantity: 1 }, { ...freshUser(), 'idempotency-key': 'bad key!' }), status: 400, code: VF },
  { name: 'purchase: empty Idempotency-Key', request: () => purchase({ quantity: 1 }, { ...freshUser(), 'idempotency-key': '' }), status: 400, code: VF },
  { name: 'purchase: Idempotency-Key with non-ASCII', request: () => purchase({ quantity: 1 }, { ...freshUser(), 'idempotency-key': 'ключ' }), status: 400, code: VF },
  // reads
  { name: 'get product: huge id', request: () => ({ method: 'GET', url: '/products/123456789012345678901234567890' }), status: 400, code: VF },
  { name: 'get product: id of 2^63', request: () => ({ method: 'GET', url: '/products/9223372036854775808' }), status: 400, code: VF },
  { name: 'purchase: id of 2^63', request: () => purchase({ quantity: 1 }, freshUser(), '9223372036854775808'), status: 400, code: VF },
  { name: 'get product: negative id', request: () => ({ method: 'GET', url: '/products/-7' }), status: 400, code: VF },
  { name: 'orders: limit=0', request: () => listOrders('limit=0'), status: 400, code: VF },
  { name: 'orders: limit=501', request: () => listOrders('limit=501'), status: 400, code: VF },
  { name: 'orders: limit=abc', request: () => listOrders('limit=abc'), status: 400, code: VF },
  { name: 'orders: limit=-1', request: () => listOrders('limit=-1'), status: 400, code: VF },
  { name: 'orders: limit=2.5', request: () => listOrders('limit=2.5'), status: 400, code: VF },
  { name: 'orders: limit given twice', request: () => listOrders('limit=1&limit=2'), status: 400, code: VF },
  { name: 'orders: status=FOO', request: () => listOrders('status=FOO'), status: 400, code: VF },
  { name: 'orders: cursor=garbage', request: () => listOrders('cursor=garbage'), status: 400, code: VF },
  { name: 'orders: cursor of symbols', request: () => listOrders(`cursor=${encodeURIComponent("'; select 1;--")}`), status: 400, code: VF },
  { name: 'orders: productId=abc', request: () => listOrders('productId=abc'), status: 400, code: VF },
  { name: 'orders: productId past the signed 64-bit range', request: () => listOrders('productId=9999999999999999999'), status: 400, code: VF },
  { name: 'orders: productId of 2^63', request: () => listOrders('productId=9223372036854775808'), status: 400, code: VF },
  { name: 'orders: cursor whose id is 2^63', request: () => listOrders(`cursor=${Buffer.from('t:1795478400123456:9223372036854775808').toString('base64url')}`), status: 400, code: VF },
  { name: 'orders: id-only cursor past the 64-bit range', request: () => listOrders(`cursor=${Buffer.from('o:9999999999999999999').toString('base64url')}`), status: 400, code: VF },
  { name: 'orders: unknown query parameter', request: () => listOrders('userId=someone-else'), status: 400, code: VF },
  { name: 'order: non-numeric id', request: () => ({ method: 'GET', url: '/orders/abc', headers: freshUser() }), status: 400, code: VF },
  { name: 'pay: negative id', request: () => ({ method: 'POST', url: '/orders/-5/pay', headers: freshUser() }), status: 400, code: VF },
  { name: 'cancel: huge id', request: () => ({ method: 'POST', url: '/orders/99999999999999999999/cancel', headers: freshUser() }), status: 400, code: VF },
  // hostile shapes: nesting that would overflow a recursive walker, broken URL encodings, abused parameters
  { name: 'purchase: quantity nested 10,000 arrays deep', request: () => raw('POST', `/products/${product.id}/purchase`, `{"quantity":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, { ...freshUser(), ...json }), status: 400, code: VF },
  { name: 'create: body nested 10,000 objects deep', request: () => raw('POST', '/admin/products', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, { ...adminAuth(), ...json }), status: 400, code: VF },
  { name: 'product: broken percent-encoding in the path', request: () => ({ method: 'GET', url: '/products/%E0%A4%A', headers: {} }), status: 400, code: VF },
  { name: 'purchase: broken percent-encoding in the path', request: () => purchase({ quantity: 1 }, freshUser(), '%E0%A4%A'), status: 400, code: VF },
  { name: 'product: NUL byte in the id', request: () => ({ method: 'GET', url: '/products/1%00', headers: {} }), status: 400, code: VF },
  { name: 'product: id of 1,000 digits', request: () => ({ method: 'GET', url: `/products/${'9'.repeat(1000)}`, headers: {} }), status: 414, code: 'URI_TOO_LONG', alternatives: [[400, VF]] },
  { name: 'orders: status given as an array', request: () => listOrders('status=PAID&status=CANCELLED'), status: 400, code: VF },
  { name: 'orders: broken percent-encoding in the query', request: () => listOrders('cursor=%E0%A4%A'), status: 400, code: VF },
  // tokens and roles
  { name: 'auth: forged token (wrong secret)', request: () => purchase({ quantity: 1 }, bearer(forgedToken())), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: forged admin token on admin route', request: () => createProduct(validProduct(), bearer(forgedToken('evil', 'admin'))), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: expired token', request: () => purchase({ quantity: 1 }, bearer(expiredToken())), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: alg none token claiming admin', request: () => createProduct(validProduct(), bearer(algNoneToken())), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: not a JWT', request: () => purchase({ quantity: 1 }, bearer('not-a-token')), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: Basic scheme', request: () => purchase({ quantity: 1 }, { authorization: 'Basic dXNlcjpwYXNz' }), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: unknown role claim', request: () => createProduct(validProduct(), bearer(tokenWithClaims({ sub: 'x', role: 'superuser' }))), status: 401, code: 'UNAUTHENTICATED' },
  // "\ud800" and "\udbff" would both be stored as U+FFFD: two subjects, one user.
  { name: 'auth: sub with a lone UTF-16 surrogate', request: () => purchase({ quantity: 1 }, bearer(tokenWithClaims({ sub: 'user-\ud800', role: 'user' }))), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: sub ending in a lone low surrogate', request: () => purchase({ quantity: 1 }, bearer(tokenWithClaims({ sub: 'user-\udc00', role: 'user' }))), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: numeric sub', request: () => purchase({ quantity: 1 }, bearer(tokenWithClaims({ sub: 42, role: 'user' }))), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: no token on purchase', request: () => purchase({ quantity: 1 }, {}), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'auth: no token on orders', request: () => listOrders('limit=5', {}), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'role: user creates a product', request: () => createProduct(validProduct(), freshUser()), status: 403, code: 'FORBIDDEN' },
  { name: 'role: user sets stock', request: () => setStock({ stock: 1000 }, product.id, freshUser()), status: 403, code: 'FORBIDDEN' },
  { name: "role: user pays someone else's order", request: () => ({ method: 'POST', url: `/orders/${order.id}/pay`, headers: freshUser() }), status: 403, code: 'FORBIDDEN' },
  { name: "role: user cancels someone else's order", request: () => ({ method: 'POST', url: `/orders/${order.id}/cancel`, headers: freshUser() }), status: 403, code: 'FORBIDDEN' },
];

describe('bad input', () => {
  let harness: AppHarness;
  let api: Api;
  let before: unknown;

  const snapshot = () =>
    withPg(harness.env.DATABASE_URL, async (pg) => ({
      products: (await pg.query('SELECT * FROM products ORDER BY id')).rows,
      orders: (await pg.query('SELECT id, status, quantity, user_id, paid_at, closed_at FROM orders ORDER BY id')).rows,
      quota: (await pg.query('SELECT * FROM user_product_quota ORDER BY user_id, product_id')).rows,
    }));

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '100000' });
    api = new Api(injectSender(harness.app));
    product = await api.createProduct({ stock: 10, perUserLimit: 5 });
    const res = await api.purchase(product.id, 'bad-input-owner');
    expect(res.status).toBe(201);
    order = res.body as Order;
    before = await snapshot();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it(`has at least 40 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const res = await api.send(c.request());
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const allowed = [[c.status, c.code], ...(c.alternatives ?? [])];
    const match = allowed.find(([status, code]) => status === res.status && code === res.body?.code) ?? [c.status, c.code];
    expectContractError(res, match[0] as number, match[1] as string);
  });

  it('left the database unchanged (products, orders, quotas)', async () => {
    expect(await snapshot()).toEqual(before);
  });

  it('still serves a good request afterwards', async () => {
    const res = await api.purchase(product.id, 'bad-input-good-user');
    expect(res.status).toBe(201);
  });
});
