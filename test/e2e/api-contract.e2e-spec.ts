/**
 * Every row of CONTRACT.md's API table and error table, against the real app (in process, Fastify
 * inject) with its own Postgres database and private redis-server.
 */
import { AppHarness, startApp } from '../support/app-harness';
import {
  Api,
  ApiResponse,
  expectContractError,
  expectInvariants,
  eventually,
  injectSender,
  invariants,
  withPg,
  Order,
  ORDER_KEYS,
  ordersInDatabase,
  Product,
  PRODUCT_KEYS,
  uniqueSku,
} from '../support/api-client';
import { pinRateWindow } from '../support/rate-clock';
import { adminAuth, auth } from '../support/tokens';

jest.setTimeout(60_000);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const hourFromNow = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();

function expectProduct(body: unknown): Product {
  const product = body as Product;
  expect(Object.keys(product).sort()).toEqual(PRODUCT_KEYS);
  expect(product.id).toMatch(/^[1-9][0-9]*$/);
  expect(typeof product.stock).toBe('number');
  return product;
}

function expectOrder(body: unknown): Order {
  const order = body as Order;
  expect(Object.keys(order).sort()).toEqual(ORDER_KEYS);
  expect(typeof order.id).toBe('string');
  expect(typeof order.productId).toBe('string');
  expect(order.createdAt).toMatch(ISO);
  expect(order.expiresAt).toMatch(ISO);
  expect(['PENDING_PAYMENT', 'PAID', 'CANCELLED', 'EXPIRED']).toContain(order.status);
  return order;
}

const created = (res: ApiResponse): Order => {
  expect({ status: res.status, raw: res.raw.slice(0, 300) }).toEqual({ status: 201, raw: expect.any(String) });
  return expectOrder(res.body);
};

describe('API contract', () => {
  let harness: AppHarness;
  let api: Api;
  let db: string;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '100000' });
    api = new Api(injectSender(harness.app));
    db = harness.env.DATABASE_URL;
  });
  afterAll(async () => {
    await harness?.close();
  });

  describe('POST /admin/products', () => {
    it('201 with the Product shape, defaults applied', async () => {
      const sku = uniqueSku('NEW');
      const res = await api.createProductRaw({ sku, name: 'Phone X', priceCents: 49900, stock: 7, perUserLimit: undefined });
      expect(res.status).toBe(201);
      const product = expectProduct(res.body);
      expect(product).toEqual({ id: expect.any(String), sku, name: 'Phone X', priceCents: 49900, stock: 7, perUserLimit: 1, saleStartsAt: null, saleEndsAt: null });
      await expectInvariants(db, product.id);
    });

    it('201 keeps the sale window and perUserLimit', async () => {
      const saleStartsAt = hourFromNow(-1);
      const saleEndsAt = hourFromNow(1);
      const res = await api.createProductRaw({ stock: 3, perUserLimit: 2, saleStartsAt, saleEndsAt });
      expect(res.status).toBe(201);
      const product = expectProduct(res.body);
      expect(product).toMatchObject({ stock: 3, perUserLimit: 2 });
      expect(Date.parse(product.saleStartsAt!)).toBe(Date.parse(saleStartsAt));
      expect(Date.parse(product.saleEndsAt!)).toBe(Date.parse(saleEndsAt));
    });

    it('409 DUPLICATE_SKU for a SKU already used', async () => {
      const sku = uniqueSku('DUP');
      expect((await api.createProductRaw({ sku })).status).toBe(201);
      expectContractError(await api.createProductRaw({ sku, name: 'another' }), 409, 'DUPLICATE_SKU');
    });

    it('400 VALIDATION_FAILED for a malformed body', async () => {
      expectContractError(await api.createProductRaw({ stock: -1 }), 400, 'VALIDATION_FAILED');
      expectContractError(await api.send({ method: 'POST', url: '/admin/products', headers: adminAuth(), payload: { name: 'no sku', priceCents: 1, stock: 1 } }), 400, 'VALIDATION_FAILED');
    });

    it('401 UNAUTHENTICATED without a token', async () => {
      expectContractError(await api.createProductRaw({}, {}), 401, 'UNAUTHENTICATED');
    });

    it('403 FORBIDDEN for a user token', async () => {
      expectContractError(await api.createProductRaw({}, auth('plain-user')), 403, 'FORBIDDEN');
    });
  });

  describe('PUT /admin/products/:id/stock', () => {
    it('200 with the product at the new stock; GET shows it; conservation counts the adjustment', async () => {
      const product = await api.createProduct({ stock: 5, perUserLimit: 5 });
      created(await api.purchase(product.id, 'stock-adj-buyer', { quantity: 2 }));
      // warm the product cache, so the GET below proves the adjustment invalidated it
      expect((await api.getProduct(product.id)).body.stock).toBe(3);
      const res = await api.setStock(product.id, 40);
      expect(res.status).toBe(200);
      expect(expectProduct(res.body)).toMatchObject({ id: product.id, stock: 40 });
      expect((await api.getProduct(product.id)).body.stock).toBe(40);
      const report = await expectInvariants(db, product.id);
      expect(report).toMatchObject({ stock: 40, live: 2, supplied: 42 });
    });

    it('setting stock to 0 sells out; raising it again sells again', async () => {
      const product = await api.createProduct({ stock: 5 });
      expect((await api.setStock(product.id, 0)).status).toBe(200);
      expectContractError(await api.purchase(product.id, 'zero-stock-a'), 409, 'SOLD_OUT');
      expect((await api.setStock(product.id, 1)).status).toBe(200);
      created(await api.purchase(product.id, 'zero-stock-b'));
      await expectInvariants(db, product.id);
    });

    it('404 PRODUCT_NOT_FOUND for an unknown product', async () => {
      expectContractError(await api.setStock('987654321', 5), 404, 'PRODUCT_NOT_FOUND');
    });

    it('400 VALIDATION_FAILED for a negative or non-integer stock', async () => {
      const product = await api.createProduct();
      expectContractError(await api.setStock(product.id, -1), 400, 'VALIDATION_FAILED');
      expectContractError(await api.setStock(product.id, 2.5), 400, 'VALIDATION_FAILED');
      expect((await api.getProduct(product.id)).body.stock).toBe(10);
    });

    it('401 without a token, 403 for a user', async () => {
      const product = await api.createProduct();
      expectContractError(await api.setStock(product.id, 1, {}), 401, 'UNAUTHENTICATED');
      expectContractError(await api.setStock(product.id, 1, auth('not-admin')), 403, 'FORBIDDEN');
    });
  });

  describe('GET /products/:id', () => {
    it('200 for anyone (no token needed)', async () => {
      const product = await api.createProduct({ stock: 12 });
      const res = await api.getProduct(product.id);
      expect(res.status).toBe(200);
      expect(expectProduct(res.body)).toEqual(product);
      expect((await api.getProduct(product.id, auth('someone'))).status).toBe(200);
    });

    it('404 PRODUCT_NOT_FOUND', async () => {
      expectContractError(await api.getProduct('987654322'), 404, 'PRODUCT_NOT_FOUND');
    });
  });

  describe('POST /products/:id/purchase', () => {
    it('201 with the Order shape; quantity defaults to 1; durable in Postgres', async () => {
      const product = await api.createProduct({ stock: 10, perUserLimit: 3 });
      const before = Date.now();
      const answer = await api.purchase(product.id, 'buyer-shape', { noBody: true });
      const order = created(answer);
      expect(order).toMatchObject({ productId: product.id, userId: 'buyer-shape', quantity: 1, status: 'PENDING_PAYMENT', paidAt: null });
      // Without an Idempotency-Key the API names the purchase itself, in the header and on the order.
      expect(order.purchaseId).toMatch(/^p-[0-9a-f-]{36}$/);
      expect(answer.headers['purchase-id']).toBe(order.purchaseId);
      expect(Date.parse(order.expiresAt)).toBeGreaterThan(Date.parse(order.createdAt));
      expect(Date.parse(order.expiresAt)).toBeGreaterThan(before + 800_000); // ORDER_PAYMENT_TTL_S defaults to 900
      const emptyBody = created(await api.send({ method: 'POST', url: `/products/${product.id}/purchase`, headers: { ...auth('buyer-shape-2'), 'content-type': 'application/json' }, payload: '{}' }));
      expect(emptyBody.quantity).toBe(1);
      const two = created(await api.purchase(product.id, 'buyer-shape-3', { quantity: 2 }));
      expect(two.quantity).toBe(2);
      const rows = await ordersInDatabase(db, [order.id, emptyBody.id, two.id]);
      expect(rows.size).toBe(3);
      expect((await api.getProduct(product.id)).body.stock).toBe(6);
      await expectInvariants(db, product.id);
    });

    it('409 SOLD_OUT when the stock cannot cover the quantity', async () => {
      const product = await api.createProduct({ stock: 3, perUserLimit: 5 });
      expectContractError(await api.purchase(product.id, 'greedy', { quantity: 4 }), 409, 'SOLD_OUT');
      created(await api.purchase(product.id, 'first', { quantity: 3 }));
      expectContractError(await api.purchase(product.id, 'second'), 409, 'SOLD_OUT');
      const report = await expectInvariants(db, product.id);
      expect(report).toMatchObject({ stock: 0, live: 3 });
    });

    it('409 PER_USER_LIMIT when the user would exceed perUserLimit', async () => {
      const product = await api.createProduct({ stock: 20, perUserLimit: 2 });
      expectContractError(await api.purchase(product.id, 'limited', { quantity: 3 }), 409, 'PER_USER_LIMIT');
      created(await api.purchase(product.id, 'limited', { quantity: 1 }));
      created(await api.purchase(product.id, 'limited', { quantity: 1 }));
      expectContractError(await api.purchase(product.id, 'limited', { quantity: 1 }), 409, 'PER_USER_LIMIT');
      created(await api.purchase(product.id, 'other-user', { quantity: 2 }));
      const report = await expectInvariants(db, product.id);
      expect(report.liveByUser).toEqual({ limited: 2, 'other-user': 2 });
    });

    it('403 SALE_NOT_ACTIVE before saleStartsAt and after saleEndsAt', async () => {
      const early = await api.createProduct({ stock: 5, saleStartsAt: hourFromNow(1), saleEndsAt: hourFromNow(2) });
      expectContractError(await api.purchase(early.id, 'too-early'), 403, 'SALE_NOT_ACTIVE');
      const late = await api.createProduct({ stock: 5, saleStartsAt: hourFromNow(-2), saleEndsAt: hourFromNow(-1) });
      expectContractError(await api.purchase(late.id, 'too-late'), 403, 'SALE_NOT_ACTIVE');
      const open = await api.createProduct({ stock: 5, saleStartsAt: hourFromNow(-1), saleEndsAt: hourFromNow(1) });
      created(await api.purchase(open.id, 'on-time'));
      expect((await api.getProduct(early.id)).body.stock).toBe(5);
      expect((await api.getProduct(late.id)).body.stock).toBe(5);
    });

    it('404 PRODUCT_NOT_FOUND', async () => {
      expectContractError(await api.purchase('987654323', 'lost-buyer'), 404, 'PRODUCT_NOT_FOUND');
    });

    it('401 without a token', async () => {
      const product = await api.createProduct();
      expectContractError(await api.send({ method: 'POST', url: `/products/${product.id}/purchase`, payload: { quantity: 1 } }), 401, 'UNAUTHENTICATED');
    });

    it('an Idempotency-Key replay returns the first response and deducts once', async () => {
      const product = await api.createProduct({ stock: 10, perUserLimit: 5 });
      const first = await api.purchase(product.id, 'idem-user', { quantity: 2, idempotencyKey: 'key-abc-1' });
      const order = created(first);
      const replay = await api.purchase(product.id, 'idem-user', { quantity: 2, idempotencyKey: 'key-abc-1' });
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      expect((await api.getProduct(product.id)).body.stock).toBe(8);
      // still the first response after the order moved on
      expect((await api.pay(order.id, auth('idem-user'))).status).toBe(200);
      const afterPay = await api.purchase(product.id, 'idem-user', { quantity: 2, idempotencyKey: 'key-abc-1' });
      expect(afterPay.status).toBe(201);
      expect(afterPay.body).toEqual(first.body);
      const report = await expectInvariants(db, product.id);
      expect(report).toMatchObject({ stock: 8, live: 2 });
      expect(report.ordersByStatus).toEqual({ PAID: 1 });
    });

    it('422 IDEMPOTENCY_KEY_REUSED for the same key with a different request', async () => {
      const product = await api.createProduct({ stock: 10, perUserLimit: 5 });
      const other = await api.createProduct({ stock: 10, perUserLimit: 5 });
      created(await api.purchase(product.id, 'idem-reuser', { quantity: 1, idempotencyKey: 'key-reused-1' }));
      expectContractError(await api.purchase(product.id, 'idem-reuser', { quantity: 2, idempotencyKey: 'key-reused-1' }), 422, 'IDEMPOTENCY_KEY_REUSED');
      expectContractError(await api.purchase(other.id, 'idem-reuser', { quantity: 1, idempotencyKey: 'key-reused-1' }), 422, 'IDEMPOTENCY_KEY_REUSED');
      expect((await api.getProduct(product.id)).body.stock).toBe(9);
      expect((await api.getProduct(other.id)).body.stock).toBe(10);
      await expectInvariants(db, product.id);
      await expectInvariants(db, other.id);
    });
  });

  describe('GET /orders', () => {
    let p1: Product;
    let p2: Product;
    const mine: Order[] = [];
    let theirs: Order[] = [];

    beforeAll(async () => {
      p1 = await api.createProduct({ stock: 100, perUserLimit: 10 });
      p2 = await api.createProduct({ stock: 100, perUserLimit: 10 });
      for (let i = 0; i < 5; i++) mine.push(created(await api.purchase(p1.id, 'lister-a')));
      for (let i = 0; i < 2; i++) mine.push(created(await api.purchase(p2.id, 'lister-a')));
      theirs = [created(await api.purchase(p1.id, 'lister-b')), created(await api.purchase(p1.id, 'lister-b'))];
      expect((await api.pay(mine[1].id, auth('lister-a'))).status).toBe(200);
    });

    const ids = (items: Order[]) => items.map((o) => o.id);
    const newestFirst = (items: Order[]) => [...items].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));

    it('a user sees only their own orders, newest first', async () => {
      const res = await api.listOrders(auth('lister-a'));
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['items', 'nextCursor']);
      res.body.items.forEach(expectOrder);
      expect(ids(res.body.items)).toEqual(ids(newestFirst(mine)));
      expect(res.body.items.every((o: Order) => o.userId === 'lister-a')).toBe(true);
      expect(res.body.nextCursor).toBeNull();
      const times = res.body.items.map((o: Order) => Date.parse(o.createdAt));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('an admin sees everyone\'s orders', async () => {
      const res = await api.listOrders(adminAuth(), { productId: p1.id, limit: 500 });
      expect(res.status).toBe(200);
      const expected = newestFirst([...mine.filter((o) => o.productId === p1.id), ...theirs]);
      expect(ids(res.body.items)).toEqual(ids(expected));
    });

    it('filters by productId and by status', async () => {
      const byProduct = await api.listOrders(auth('lister-a'), { productId: p2.id });
      expect(byProduct.status).toBe(200);
      expect(ids(byProduct.body.items)).toEqual(ids(newestFirst(mine.filter((o) => o.productId === p2.id))));
      const paid = await api.listOrders(auth('lister-a'), { status: 'PAID' });
      expect(paid.status).toBe(200);
      expect(ids(paid.body.items)).toEqual([mine[1].id]);
      expect(paid.body.items[0].status).toBe('PAID');
      const both = await api.listOrders(auth('lister-a'), { productId: p1.id, status: 'PENDING_PAYMENT' });
      expect(ids(both.body.items)).toEqual(ids(newestFirst(mine.filter((o, i) => o.productId === p1.id && i !== 1))));
      const others = await api.listOrders(auth('lister-b'), { productId: p2.id });
      expect(others.body.items).toEqual([]);
    });

    it('paginates with nextCursor, newest first, until nextCursor is null', async () => {
      const seen: Order[] = [];
      let cursor: string | null | undefined;
      let pages = 0;
      do {
        const res = await api.listOrders(auth('lister-a'), { limit: 2, ...(cursor ? { cursor } : {}) });
        expect(res.status).toBe(200);
        expect(res.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.items);
        cursor = res.body.nextCursor;
        if (cursor !== null) expect(typeof cursor).toBe('string');
        pages++;
      } while (cursor && pages < 20);
      expect(pages).toBe(4); // 7 orders, 2 per page
      expect(ids(seen)).toEqual(ids(newestFirst(mine)));
    });

    it('orders committed out of step with their ids are listed by createdAt, then id, and the cursor walks them all once', async () => {
      const product = await api.createProduct({ stock: 100, perUserLimit: 10 });
      const orders: Order[] = [];
      for (let i = 0; i < 5; i++) orders.push(created(await api.purchase(product.id, 'lister-c')));
      // As when a batch that began earlier commits later: the lowest id is the newest, and two
      // orders share one instant (then the larger id comes first).
      const at = ['2030-01-01T00:00:05Z', '2030-01-01T00:00:01Z', '2030-01-01T00:00:03Z', '2030-01-01T00:00:03Z', '2030-01-01T00:00:02Z'];
      await withPg(db, async (pg) => {
        for (let i = 0; i < orders.length; i++) await pg.query('UPDATE orders SET created_at = $2 WHERE id = $1', [orders[i].id, at[i]]);
      });
      const expected = [orders[0], orders[3], orders[2], orders[4], orders[1]].map((o) => o.id);
      const seen: Order[] = [];
      let cursor: string | null = null;
      do {
        const res = await api.listOrders(auth('lister-c'), { limit: 2, ...(cursor ? { cursor } : {}) });
        expect(res.status).toBe(200);
        seen.push(...res.body.items);
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(ids(seen)).toEqual(expected);
      const times = seen.map((o) => Date.parse(o.createdAt));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('limit must be 1..500', async () => {
      expect((await api.listOrders(auth('lister-a'), { limit: 500 })).status).toBe(200);
      expectContractError(await api.listOrders(auth('lister-a'), { limit: 501 }), 400, 'VALIDATION_FAILED');
      expectContractError(await api.listOrders(auth('lister-a'), { limit: 0 }), 400, 'VALIDATION_FAILED');
    });

    it('401 without a token', async () => {
      expectContractError(await api.listOrders({}), 401, 'UNAUTHENTICATED');
    });
  });

  describe('GET /orders/:id', () => {
    let order: Order;
    beforeAll(async () => {
      const product = await api.createProduct({ stock: 5 });
      order = created(await api.purchase(product.id, 'owner-get'));
    });

    it('200 for the owner', async () => {
      const res = await api.getOrder(order.id, auth('owner-get'));
      expect(res.status).toBe(200);
      expect(expectOrder(res.body)).toEqual(order);
    });

    it('403 FORBIDDEN for another user', async () => {
      expectContractError(await api.getOrder(order.id, auth('snooper')), 403, 'FORBIDDEN');
    });

    it('200 for an admin', async () => {
      const res = await api.getOrder(order.id, adminAuth());
      expect(res.status).toBe(200);
      expect(res.body).toEqual(order);
    });

    it('404 ORDER_NOT_FOUND', async () => {
      expectContractError(await api.getOrder('987654324', auth('owner-get')), 404, 'ORDER_NOT_FOUND');
      expectContractError(await api.getOrder('987654324', adminAuth()), 404, 'ORDER_NOT_FOUND');
    });

    it('401 without a token', async () => {
      expectContractError(await api.getOrder(order.id, {}), 401, 'UNAUTHENTICATED');
    });
  });

  describe('POST /orders/:id/pay', () => {
    it('200 PAID for the owner; a second pay is 409 INVALID_ORDER_STATE', async () => {
      const product = await api.createProduct({ stock: 5 });
      const order = created(await api.purchase(product.id, 'payer'));
      const res = await api.pay(order.id, auth('payer'));
      expect(res.status).toBe(200);
      const paid = expectOrder(res.body);
      expect(paid).toMatchObject({ id: order.id, status: 'PAID', quantity: 1, userId: 'payer', productId: product.id });
      expect(paid.paidAt).toMatch(ISO);
      expect((await api.getOrder(order.id, auth('payer'))).body.status).toBe('PAID');
      expectContractError(await api.pay(order.id, auth('payer')), 409, 'INVALID_ORDER_STATE');
      const report = await expectInvariants(db, product.id);
      expect(report).toMatchObject({ stock: 4, live: 1 });
    });

    it("403 FORBIDDEN for someone else's order (another user, or an admin: only the order's user pays)", async () => {
      const product = await api.createProduct({ stock: 5 });
      const order = created(await api.purchase(product.id, 'payer-2'));
      expectContractError(await api.pay(order.id, auth('thief')), 403, 'FORBIDDEN');
      expectContractError(await api.pay(order.id, adminAuth()), 403, 'FORBIDDEN');
      expect((await api.getOrder(order.id, auth('payer-2'))).body.status).toBe('PENDING_PAYMENT');
    });

    it('404 ORDER_NOT_FOUND; 409 for a cancelled order', async () => {
      expectContractError(await api.pay('987654325', auth('payer-3')), 404, 'ORDER_NOT_FOUND');
      const product = await api.createProduct({ stock: 5 });
      const order = created(await api.purchase(product.id, 'payer-3'));
      expect((await api.cancel(order.id, auth('payer-3'))).status).toBe(200);
      expectContractError(await api.pay(order.id, auth('payer-3')), 409, 'INVALID_ORDER_STATE');
    });
  });

  describe('POST /orders/:id/cancel', () => {
    it('200 CANCELLED; stock returned and the sold-out flag cleared so a new purchase succeeds; cancel twice is 409', async () => {
      const product = await api.createProduct({ stock: 1, perUserLimit: 1 });
      const order = created(await api.purchase(product.id, 'canceller'));
      expectContractError(await api.purchase(product.id, 'waiting-buyer'), 409, 'SOLD_OUT');
      expect((await api.getProduct(product.id)).body.stock).toBe(0);
      const res = await api.cancel(order.id, auth('canceller'));
      expect(res.status).toBe(200);
      expect(expectOrder(res.body)).toMatchObject({ id: order.id, status: 'CANCELLED' });
      expect((await api.getProduct(product.id)).body.stock).toBe(1);
      await expectInvariants(db, product.id);
      created(await api.purchase(product.id, 'waiting-buyer'));
      expectContractError(await api.cancel(order.id, auth('canceller')), 409, 'INVALID_ORDER_STATE');
      const report = await expectInvariants(db, product.id);
      expect(report).toMatchObject({ stock: 0, live: 1 });
    });

    it("cancelling frees the user's per-user quota", async () => {
      const product = await api.createProduct({ stock: 10, perUserLimit: 1 });
      const order = created(await api.purchase(product.id, 'quota-user'));
      expectContractError(await api.purchase(product.id, 'quota-user'), 409, 'PER_USER_LIMIT');
      expect((await api.cancel(order.id, auth('quota-user'))).status).toBe(200);
      created(await api.purchase(product.id, 'quota-user'));
      const report = await expectInvariants(db, product.id);
      expect(report.quotaByUser).toEqual({ 'quota-user': 1 });
    });

    it("an admin may cancel anyone's order; another user gets 403; unknown is 404", async () => {
      const product = await api.createProduct({ stock: 5 });
      const order = created(await api.purchase(product.id, 'victim'));
      expectContractError(await api.cancel(order.id, auth('vandal')), 403, 'FORBIDDEN');
      const res = await api.cancel(order.id, adminAuth());
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('CANCELLED');
      expectContractError(await api.cancel('987654326', adminAuth()), 404, 'ORDER_NOT_FOUND');
      const report = await expectInvariants(db, product.id);
      expect(report).toMatchObject({ stock: 5, live: 0 });
    });
  });

  describe('the invariant checker itself', () => {
    it('flags a product whose rows were corrupted behind the API (so green invariants mean something)', async () => {
      const product = await api.createProduct({ stock: 5, perUserLimit: 1 });
      created(await api.purchase(product.id, 'checked-user'));
      await expectInvariants(db, product.id);
      await withPg(db, (pg) => pg.query('UPDATE products SET stock = stock - 1 WHERE id = $1', [product.id]));
      await withPg(db, (pg) => pg.query("UPDATE user_product_quota SET quantity = 0 WHERE product_id = $1", [product.id]));
      const report = await invariants(db, product.id);
      expect(report.violations).toEqual([expect.stringMatching(/^conservation/), expect.stringMatching(/^quota row of checked-user/)]);
    });
  });

  describe('operations', () => {
    it('GET /health is 200 in Terminus format, public', async () => {
      const res = await api.send({ method: 'GET', url: '/health' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok' });
    });

    it('GET /metrics has purchases_total, lock_ metrics and http_request_duration_seconds', async () => {
      const product = await api.createProduct({ stock: 2 });
      created(await api.purchase(product.id, 'metrics-buyer'));
      const res = await api.send({ method: 'GET', url: '/metrics' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/plain/);
      expect(res.raw).toMatch(/^purchases_total\{[^}]*outcome="created"[^}]*\} [1-9]/m);
      expect(res.raw).toMatch(/^lock_[a-z_]+/m);
      expect(res.raw).toMatch(/^lock_wait_seconds/m);
      expect(res.raw).toMatch(/^lock_hold_seconds/m);
      expect(res.raw).toMatch(/^http_request_duration_seconds_bucket\{/m);
    });

    it('GET /docs is the Swagger UI and documents every route', async () => {
      const res = await api.send({ method: 'GET', url: '/docs' });
      expect(res.status).toBe(200);
      expect(res.raw).toMatch(/swagger/i);
      const json = await api.send({ method: 'GET', url: '/docs-json' });
      expect(json.status).toBe(200);
      const paths = Object.keys(json.body.paths);
      for (const path of ['/admin/products', '/admin/products/{id}/stock', '/products/{id}', '/products/{id}/purchase', '/orders', '/orders/{id}', '/orders/{id}/pay', '/orders/{id}/cancel', '/health', '/metrics']) {
        expect(paths).toContain(path);
      }
    });
  });
});

describe('API contract: rate limit and payment expiry (RATE_LIMIT_PER_SECOND=3, ORDER_PAYMENT_TTL_S=1)', () => {
  let harness: AppHarness;
  let api: Api;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '3', ORDER_PAYMENT_TTL_S: '1' });
    api = new Api(injectSender(harness.app));
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('429 RATE_LIMITED with Retry-After once a user exceeds the per-second limit; others are unaffected', async () => {
    const product = await api.createProduct({ stock: 100, perUserLimit: 100 });
    // One window for the whole burst, even if it straddles a wall-clock second: 3 pass, 7 are refused.
    const unpin = pinRateWindow(harness.app);
    let answers: ApiResponse[];
    try {
      answers = await Promise.all(Array.from({ length: 10 }, () => api.purchase(product.id, 'hasty')));
    } finally {
      unpin();
    }
    const limited = answers.filter((r) => r.status === 429);
    expect(limited).toHaveLength(7);
    expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
    for (const res of limited) {
      expectContractError(res, 429, 'RATE_LIMITED');
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    created(await api.purchase(product.id, 'patient'));
    await expectInvariants(harness.env.DATABASE_URL, product.id);
  });

  it('an unpaid order expires within ~15 s, its stock and quota return, and paying it then is 409', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 2 });
    const order = created(await api.purchase(product.id, 'slow-payer', { quantity: 2 }));
    expect(Date.parse(order.expiresAt) - Date.parse(order.createdAt)).toBeLessThanOrEqual(2000);
    expect((await api.getProduct(product.id)).body.stock).toBe(3);
    await eventually(async () => (await api.getOrder(order.id, auth('slow-payer'))).body.status === 'EXPIRED', 20_000, 300, 'order to expire');
    await eventually(async () => (await api.getProduct(product.id)).body.stock === 5, 5_000, 200, 'stock to return');
    expectContractError(await api.pay(order.id, auth('slow-payer')), 409, 'INVALID_ORDER_STATE');
    expectContractError(await api.cancel(order.id, auth('slow-payer')), 409, 'INVALID_ORDER_STATE');
    const report = await expectInvariants(harness.env.DATABASE_URL, product.id);
    expect(report).toMatchObject({ stock: 5, live: 0, ordersByStatus: { EXPIRED: 1 } });
    // the quota came back too: the user may buy their full limit again
    created(await api.purchase(product.id, 'slow-payer', { quantity: 2 }));
  });
});
