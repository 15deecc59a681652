import { Api, injectSender } from '../support/api-client';
import { TEST_JWT_SECRET } from '../support/app-harness';
import { startInstance } from '../support/app-instance';
import { RedisServerProcess } from '../support/redis-server';
import { tableReadsOnceIdle } from '../support/table-reads';
import { createTestDatabase, TestDatabase } from '../support/test-database';

const PRODUCTS = 30;
const JUNK_IDS = 10_050;
const BATCH = 200;

/**
 * An instance keeps each product's sale terms in memory, so that a purchase asks nothing about
 * the product. Unknown ids (here through the public join-work challenge) used to fill the same
 * map, and at 10,000 entries it was cleared: the real products' next purchases each read the
 * product from Postgres again. Counted from the outside: two runs of the same purchases, one with
 * the junk flood between them, compared by Postgres's own index scans of `products`.
 */
describe('sale terms of known products under a flood of unknown ids', () => {
  jest.setTimeout(120_000);
  let redis: RedisServerProcess;
  let database: TestDatabase;
  let env: Record<string, string>;
  let products: string[];

  beforeAll(async () => {
    [redis, database] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      JWT_SECRET: TEST_JWT_SECRET,
      // One address sends the whole flood: the challenge's own budget is route-budgets' to test.
      QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '1000000',
      RATE_LIMIT_PER_SECOND: '1000',
      // The admission step lists open sales with a scan of products every tick: out of the window measured.
      WAITING_ROOM_TICK_MS: '10000',
    };
    const setup = await startInstance(env);
    const api = new Api(injectSender(setup));
    products = [];
    for (let i = 0; i < PRODUCTS; i++) products.push((await api.createProduct({ stock: 100, perUserLimit: 10 })).id);
    // A sale drops each cached view, so that both runs below start alike: no view to serve.
    for (const id of products) expect((await api.purchase(id, 'setup')).status).toBe(201);
    await setup.close();
  });
  afterAll(async () => {
    await redis?.stop();
    await database?.drop();
  });

  /**
   * One instance's life: a purchase of each product (its terms learnt; the sale drops the cached
   * view, so a second lookup would be a query), `junk` challenge requests for distinct ids above
   * every product's, another purchase of each. Postgres's index scans of products and the flood's
   * length.
   */
  async function run(tag: string, junk: number): Promise<{ indexScans: number; floodMs: number }> {
    const before = await tableReadsOnceIdle(database.name, 'products');
    const app = await startInstance({ ...env, DB_MIGRATE: 'false' });
    const api = new Api(injectSender(app));
    let floodMs: number;
    try {
      for (const id of products) expect((await api.purchase(id, `${tag}-first`)).status).toBe(201);
      const started = Date.now();
      for (let start = 0; start < junk; start += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, junk - start) }, (_, i) =>
          app.inject({ method: 'GET', url: `/products/${1_000_000_000 + start + i}/queue/challenge` }),
        );
        for (const res of await Promise.all(batch)) expect(res.statusCode).toBe(404);
      }
      floodMs = Date.now() - started;
      for (const id of products) expect((await api.purchase(id, `${tag}-second`)).status).toBe(201);
    } finally {
      await app.close();
    }
    const after = await tableReadsOnceIdle(database.name, 'products');
    return { indexScans: after.indexScans - before.indexScans, floodMs };
  }

  it(`${JUNK_IDS} unknown ids cost the next purchases of ${PRODUCTS} known products no product lookup`, async () => {
    const quiet = await run('quiet', 0);
    const flooded = await run('flooded', JUNK_IDS);
    // Ids above the range cost one `max(id)` per instance per second (product-id-range.ts): the
    // flood's own reads, whatever it evicts.
    const rangeLooks = Math.ceil(flooded.floodMs / 1000) + 1;
    console.log(
      `index scans of products: ${quiet.indexScans} without the flood, ${flooded.indexScans} with ${JUNK_IDS} ` +
        `unknown ids in ${flooded.floodMs} ms (of which at most ${rangeLooks} range looks)`,
    );
    // Without that bound, evicted terms (a lookup per product) would hide among the range looks.
    expect(rangeLooks).toBeLessThan(PRODUCTS);
    expect(flooded.indexScans - quiet.indexScans).toBeLessThanOrEqual(rangeLooks);
  });
});
