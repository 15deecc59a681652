import { VersioningType } from '@nestjs/common';
import { Api, httpSender, Send } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';

/**
 * A team's main.ts, the Nest way: `createApp`, then `app.setGlobalPrefix('api')` and
 * `app.enableVersioning(...)`, then the docs, then `listen`. Over real sockets, the routes answer
 * under /api/v1 only, and /docs documents them there.
 */
describe("the app with main.ts's global prefix and URI versioning", () => {
  let harness: AppHarness;
  let root: Send;
  let mounted: Api;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '1000' }, undefined, (app) => {
      app.setGlobalPrefix('api');
      app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' });
    });
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    const url = await harness.app.getUrl();
    root = httpSender(url);
    mounted = new Api(httpSender(`${url}/api/v1`));
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('answers a public route under /api/v1 and not at its unprefixed path', async () => {
    const created = await mounted.createProduct({ stock: 7 });
    const read = await mounted.getProduct(created.id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.id, sku: created.sku, stock: 7 });

    const unprefixed = await root({ method: 'GET', url: `/products/${created.id}` });
    expect(unprefixed.status).toBe(404);
    // Route not found, rather than the product route answering for an unknown id.
    expect(unprefixed.body?.code).not.toBe('PRODUCT_NOT_FOUND');
  });

  it('serves the Swagger UI at /docs and a document whose every path carries the prefix', async () => {
    const ui = await root({ method: 'GET', url: '/docs' });
    expect(ui.status).toBe(200);
    expect(ui.headers['content-type']).toMatch(/^text\/html/);

    const document = await root({ method: 'GET', url: '/docs-json' });
    expect(document.status).toBe(200);
    const paths = Object.keys(document.body.paths);
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/products/{id}', '/api/v1/products/{id}/purchase']));
    expect(paths.filter((path) => !path.startsWith('/api/v1/'))).toEqual([]);
  });
});
