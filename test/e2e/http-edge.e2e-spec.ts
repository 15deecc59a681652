import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { ShutdownState } from '../../apps/api/src/common/shutdown-gate';
import { PurchaseService } from '../../apps/api/src/orders/purchase.service';
import { Api, injectSender } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { browserTests, CHROMIUM_ARGS } from '../support/chromium';
import { adminAuth, auth } from '../support/tokens';

const SHOP = 'https://shop.example.com';
const ELSEWHERE = 'https://evil.example.net';
// Without Chromium (outside CI) the browser check is declared skipped, never passed by returning early.
const { browserPath, itInBrowser } = browserTests('the Swagger UI check');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * What every answer tells browsers, caches and proxies: CORS for the configured origins, the
 * cacheability of each route (product reads revalidate to 304, a missing product is kept briefly,
 * everything else no-store), the security headers of a JSON API, and the request id.
 */
describe('HTTP edge', () => {
  let harness: AppHarness;
  let api: Api;
  let productId: string;
  let soldOutId: string;

  beforeAll(async () => {
    harness = await startApp({ CORS_ORIGINS: `${SHOP},http://localhost:8080`, PRODUCT_CACHE_MAX_AGE_S: '3', PRODUCT_CACHE_SWR_S: '27', RATE_LIMIT_PER_SECOND: '1000' });
    api = new Api(injectSender(harness.app));
    productId = (await api.createProduct({ stock: 50, perUserLimit: 5 })).id;
    soldOutId = (await api.createProduct({ stock: 1, perUserLimit: 1 })).id;
    expect((await api.purchase(soldOutId, 'first')).status).toBe(201);
  }, 60_000);
  afterAll(() => harness.close());

  const send = (method: 'GET' | 'POST' | 'PUT' | 'OPTIONS', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
    harness.app.inject({ method, url, headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers }, payload: payload === undefined ? undefined : JSON.stringify(payload) });

  const expectContractError = (res: { statusCode: number; json(): unknown }, status: number) => {
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ statusCode: status, code: expect.any(String), message: expect.any(String) });
  };

  const preflight = (url: string, origin: string, method = 'POST') =>
    send('OPTIONS', url, { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type,idempotency-key' });

  describe('CORS', () => {
    it.each([
      ['POST', '/products/1/purchase'],
      ['GET', '/products/1'],
      ['GET', '/orders'],
      ['GET', '/orders/1'],
      ['POST', '/orders/1/pay'],
      ['POST', '/orders/1/cancel'],
    ])('answers the preflight of %s %s from an allowed origin with 204 and what a storefront sends', async (method, url) => {
      const res = await preflight(url, SHOP, method);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe(SHOP);
      expect(String(res.headers['access-control-allow-methods'])).toContain(method);
      expect(String(res.headers['access-control-allow-headers']).toLowerCase().split(', ')).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']));
      expect(res.headers['access-control-max-age']).toBe('600');
    });

    it('lets an allowed page read Retry-After, X-Request-Id and ETag, and tells caches the answer varies by Origin', async () => {
      const res = await send('GET', `/products/${productId}`, { origin: SHOP });
      expect(res.headers['access-control-allow-origin']).toBe(SHOP);
      expect(String(res.headers['access-control-expose-headers']).split(', ')).toEqual(['Retry-After', 'X-Request-Id', 'ETag']);
      expect(String(res.headers.vary)).toMatch(/origin/i);
    });

    it('gives a disallowed origin no CORS header at all, on a preflight or a request', async () => {
      for (const res of [await preflight('/products/1/purchase', ELSEWHERE), await send('GET', `/products/${productId}`, { origin: ELSEWHERE })]) {
        expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
      }
      expect((await preflight('/products/1/purchase', ELSEWHERE)).statusCode).not.toBe(204);
    });

    it('puts CORS headers on errors too, so a storefront can read the contract code', async () => {
      const res = await send('POST', `/products/${productId}/purchase`, { origin: SHOP }, { quantity: 1 });
      expect(res.statusCode).toBe(401);
      expect(res.headers['access-control-allow-origin']).toBe(SHOP);
    });
  });

  describe('product reads cache at the edge', () => {
    it('carry a short max-age, stale-while-revalidate and an ETag', async () => {
      const res = await send('GET', `/products/${productId}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=3, stale-while-revalidate=27');
      expect(res.headers.etag).toMatch(/^W\/".+"$/);
    });

    it('answer If-None-Match with 304 and no body while the product is unchanged, and 200 with a new ETag once it changes', async () => {
      const first = await send('GET', `/products/${productId}`);
      const etag = String(first.headers.etag);
      const revalidated = await send('GET', `/products/${productId}`, { 'if-none-match': etag });
      expect(revalidated.statusCode).toBe(304);
      expect(revalidated.body).toBe('');
      expect(revalidated.headers.etag).toBe(etag);
      expect(revalidated.headers['cache-control']).toBe(first.headers['cache-control']);

      expect((await api.setStock(productId, 49)).status).toBe(200);
      const changed = await send('GET', `/products/${productId}`, { 'if-none-match': etag });
      expect(changed.statusCode).toBe(200);
      expect(changed.json()).toMatchObject({ id: productId, stock: 49 });
      expect(changed.headers.etag).not.toBe(etag);
    });

    it('let a cache keep "no such product" as long as a page, never stale; every other error is no-store', async () => {
      // Repeated asks for a missing id are then absorbed in front of the API.
      const missing = await send('GET', '/products/999999999');
      expect(missing.statusCode).toBe(404);
      expect(missing.headers['cache-control']).toBe('public, max-age=3');
      const malformed = await send('GET', '/products/not-an-id');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.headers['cache-control']).toBe('no-store');
    });
  });

  describe('everything else is no-store', () => {
    const expectNoStore = (res: { statusCode: number; headers: Record<string, unknown> }, status: number) => {
      expect(res.statusCode).toBe(status);
      expect(res.headers['cache-control']).toBe('no-store');
    };

    it('on purchases: a sale, a refusal, and a validation error', async () => {
      expectNoStore(await send('POST', `/products/${productId}/purchase`, auth('no-store-buyer'), { quantity: 1 }), 201);
      expectNoStore(await send('POST', `/products/${productId}/purchase`, auth('no-store-buyer'), { quantity: 9 }), 409);
      expectNoStore(await send('POST', `/products/${productId}/purchase`, auth('no-store-buyer'), { quantity: 'two' }), 400);
    });

    it('on the sold-out shortcut, which answers before Nest, with CORS and the request id as well', async () => {
      await send('POST', `/products/${soldOutId}/purchase`, auth('warm-up'), { quantity: 1 }); // this process learns it is sold out
      const service = jest.spyOn(harness.app.get(PurchaseService), 'purchase');
      try {
        const res = await send('POST', `/products/${soldOutId}/purchase`, { ...auth('late'), origin: SHOP, 'x-request-id': 'shortcut-1' }, { quantity: 1 });
        expectNoStore(res, 409);
        expect(res.json().code).toBe('SOLD_OUT');
        expect(service).not.toHaveBeenCalled();
        expect(res.headers['access-control-allow-origin']).toBe(SHOP);
        expect(res.headers['x-request-id']).toBe('shortcut-1');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      } finally {
        service.mockRestore();
      }
    });

    it('on the shutdown gate, which answers while the instance drains, with CORS and the request id as well', async () => {
      const state = harness.app.get(ShutdownState);
      state.closing = true;
      try {
        const res = await send('GET', `/products/${productId}`, { origin: SHOP, 'x-request-id': 'draining-1' });
        expectNoStore(res, 503);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.headers['access-control-allow-origin']).toBe(SHOP);
        expect(res.headers['x-request-id']).toBe('draining-1');
      } finally {
        state.closing = false;
      }
    });

    it('on orders and admin routes', async () => {
      expectNoStore(await send('GET', '/orders', auth('no-store-buyer')), 200);
      const orderId = (await api.listOrders(auth('no-store-buyer'))).body.items[0].id;
      expectNoStore(await send('GET', `/orders/${orderId}`, auth('no-store-buyer')), 200);
      expectNoStore(await send('POST', `/orders/${orderId}/pay`, auth('no-store-buyer')), 200);
      expectNoStore(await send('PUT', `/admin/products/${productId}/stock`, adminAuth(), { stock: 40 }), 200);
      expectNoStore(await send('POST', '/admin/products', adminAuth(), { sku: `EDGE-${Date.now()}`, name: 'x', priceCents: 1, stock: 1 }), 201);
    });
  });

  describe('security headers', () => {
    it('are a JSON API set on answers and errors alike', async () => {
      const responses = [await send('GET', `/products/${productId}`), await send('GET', '/no/such/route'), await send('GET', '/orders')];
      for (const res of responses) {
        expect(res.headers).toMatchObject({
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none';frame-ancestors 'none'",
          'x-frame-options': 'DENY',
          'referrer-policy': 'no-referrer',
        });
        expect(res.headers['x-xss-protection']).toBeUndefined();
        expect(res.headers['cross-origin-opener-policy']).toBeUndefined();
      }
    });

    it('leave the Swagger UI page without the CSP that would stop its scripts', async () => {
      const res = await send('GET', '/docs');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-security-policy']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    itInBrowser('still let Swagger UI render in a browser', async () => {
      await harness.app.listen(0, '127.0.0.1');
      const port = (harness.app.getHttpServer().address() as AddressInfo).port;
      const browser = await chromium.launch({ executablePath: browserPath, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage();
        const blocked: string[] = [];
        page.on('console', (message) => message.text().includes('Content Security Policy') && blocked.push(message.text()));
        await page.goto(`http://127.0.0.1:${port}/docs`);
        await page.waitForSelector('.swagger-ui .info .title');
        await expect(page.textContent('.swagger-ui .info .title')).resolves.toContain('Flash-sale API');
        await page.waitForSelector('.opblock-summary-path[data-path="/products/{id}"]');
        expect(blocked).toEqual([]);
      } finally {
        await browser.close();
      }
    }, 60_000);
  });

  describe('X-Request-Id', () => {
    it('echoes an acceptable id and replaces a bad one, on answers, errors and preflights', async () => {
      const id = { 'x-request-id': 'storefront-7f3a' };
      const answers = [
        { status: 200, res: await send('GET', `/products/${productId}`, id) },
        { status: 404, res: await send('GET', '/no/such/route', id) },
        { status: 401, res: await send('POST', `/products/${productId}/purchase`, id, { quantity: 1 }) },
        { status: 204, res: await send('OPTIONS', '/products/1/purchase', { ...id, origin: SHOP, 'access-control-request-method': 'POST' }) },
      ];
      for (const { status, res } of answers) {
        expect(res.statusCode).toBe(status);
        expect(res.headers['x-request-id']).toBe('storefront-7f3a');
      }
      const replaced = await send('GET', `/products/${productId}`, { 'x-request-id': 'has spaces and is way too long '.repeat(10) });
      expect(replaced.headers['x-request-id']).toMatch(UUID);
    });

    it('is on the answers Fastify gives before any hook runs, to a request it cannot route', async () => {
      const res = await send('GET', '/products/%E0%A4%A', { 'x-request-id': 'broken-url-1' });
      expectContractError(res, 400);
      expect(res.headers['x-request-id']).toBe('broken-url-1');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('generates a distinct id for each request that sends none', async () => {
      const [a, b] = [await send('GET', '/orders'), await send('GET', '/orders')];
      expect(a.headers['x-request-id']).toMatch(UUID);
      expect(b.headers['x-request-id']).toMatch(UUID);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });
  });

  it('documents the edge headers in Swagger', async () => {
    const document = (await send('GET', '/docs-json')).json();
    const productRead = document.paths['/products/{id}'].get;
    expect(Object.keys(productRead.responses['200'].headers)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control', 'X-Request-Id']));
    expect(productRead.responses['304']).toBeDefined();
    expect(productRead.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['If-None-Match', 'X-Request-Id']));
    const purchase = document.paths['/products/{id}/purchase'].post;
    expect(purchase.responses['201'].headers['Cache-Control'].description).toMatch(/no-store/);
    expect(Object.keys(purchase.responses['429'].headers)).toContain('Retry-After');
    expect(document.info.description).toMatch(/CORS_ORIGINS/);
  });
});
