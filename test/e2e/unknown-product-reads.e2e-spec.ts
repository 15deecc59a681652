import { randomInt } from 'node:crypto';
import { Api, injectSender, uniqueSku } from '../support/api-client';
import { TEST_JWT_SECRET } from '../support/app-harness';
import { startInstance } from '../support/app-instance';
import { RedisServerProcess } from '../support/redis-server';
import { tableReadsOnceIdle } from '../support/table-reads';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { adminAuth } from '../support/tokens';

const RANDOM_IDS = 1000;

/** `count` distinct ids none of `taken`: half below a million (where a real catalogue's ids are), half anywhere in bigint. */
function randomIds(count: number, taken: Set<string>): string[] {
  const ids = new Set<string>();
  while (ids.size < count) {
    const id =
      ids.size % 2
        ? String(randomInt(1, 1_000_000))
        : (BigInt(randomInt(1, 2 ** 48 - 1)) * 32_768n + BigInt(randomInt(0, 32_768))).toString();
    if (!taken.has(id)) ids.add(id);
  }
  return [...ids];
}

/**
 * An anonymous client asking for product ids that name nothing. Each such id used to cost a
 * Postgres query and leave a Redis key (the cached "missing" entry, unique per id), so random ids
 * made both grow with the attack. Counted from the outside: Postgres's own scan counts of the
 * `products` table, and the keys in Redis before and after.
 */
describe('GET /products/:id with random ids', () => {
  jest.setTimeout(60_000);
  let redis: RedisServerProcess;
  let database: TestDatabase;
  let env: Record<string, string>;
  const products: string[] = [];
  let gap: string;

  beforeAll(async () => {
    [redis, database] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      JWT_SECRET: TEST_JWT_SECRET,
      // The per-address budget is its own test (route-budgets): here one address may ask for everything.
      PUBLIC_READS_PER_SECOND_PER_ADDRESS: '1000000',
      // The admission step lists open sales with a scan of products every tick: out of the window measured.
      WAITING_ROOM_TICK_MS: '10000',
    };
    const setup = await startInstance(env);
    const api = new Api(injectSender(setup));
    const create = (sku: string) =>
      setup.inject({
        method: 'POST',
        url: '/admin/products',
        headers: adminAuth(),
        payload: { sku, name: 'catalogue', priceCents: 100, stock: 5 },
      });
    const first = await create(uniqueSku('READ'));
    products.push(first.json().id);
    // A refused insert still draws its id from the sequence: the one gap inside the range.
    expect((await create(first.json().sku)).statusCode).toBe(409);
    products.push((await create(uniqueSku('READ'))).json().id);
    gap = String(BigInt(products[0]) + 1n);
    expect(BigInt(products[1])).toBe(BigInt(gap) + 1n);
    for (const id of products) expect((await api.getProduct(id)).status).toBe(200);
    await setup.close();
  });
  afterAll(async () => {
    await redis?.stop();
    await database?.drop();
  });

  it(`costs at most a handful of Postgres reads and Redis keys for ${RANDOM_IDS} of them, each a 404 a cache may keep`, async () => {
    const before = await tableReadsOnceIdle(database.name, 'products');
    const keysBefore = new Set(await redis.client().keys('*'));
    const app = await startInstance({ ...env, DB_MIGRATE: 'false' });
    const ids = [...randomIds(RANDOM_IDS - 10, new Set([...products, gap])), ...Array<string>(10).fill(gap)];
    const answers: Array<{ status: number; code: string; cacheControl: unknown }> = [];
    for (let start = 0; start < ids.length; start += 50) {
      const batch = await Promise.all(
        ids.slice(start, start + 50).map((id) => app.inject({ method: 'GET', url: `/products/${id}` })),
      );
      answers.push(
        ...batch.map((res) => ({
          status: res.statusCode,
          code: res.json().code,
          cacheControl: res.headers['cache-control'],
        })),
      );
    }
    // The real products are still served, whatever was asked before.
    for (const id of products)
      expect((await app.inject({ method: 'GET', url: `/products/${id}` })).statusCode).toBe(200);
    const keysAfter = await redis.client().keys('*');
    await app.close();
    const after = await tableReadsOnceIdle(database.name, 'products');

    expect(answers.every((a) => a.status === 404 && a.code === 'PRODUCT_NOT_FOUND')).toBe(true);
    expect(new Set(answers.map((a) => a.cacheControl))).toEqual(new Set(['public, max-age=2']));
    const reads = after.seqScans - before.seqScans + (after.indexScans - before.indexScans);
    const newKeys = keysAfter.filter((key) => !keysBefore.has(key));
    console.log(
      `${ids.length} unknown ids (10 of them the gap ${gap}): Postgres counted ${reads} reads of products; ${newKeys.length} new Redis keys: ${newKeys.join(', ')}`,
    );
    expect(reads).toBeLessThanOrEqual(5);
    // Only what any request leaves (its address's rate counter, expiring in 2 s) and the gap's own entry.
    expect(newKeys.length).toBeLessThanOrEqual(5);
    const asked = new Set(ids.filter((id) => id !== gap));
    expect(newKeys.filter((key) => key.split(/[:{}]/).some((part) => asked.has(part)))).toEqual([]);
  });

  it('a product created and sold on one instance is found at once by another that just looked at the ids', async () => {
    const [seller, other] = await Promise.all([
      startInstance({ ...env, DB_MIGRATE: 'false' }),
      startInstance({ ...env, DB_MIGRATE: 'false' }),
    ]);
    try {
      const [sellerApi, otherApi] = [new Api(injectSender(seller)), new Api(injectSender(other))];
      // `other` looks up the highest id now, before the product exists...
      expect((await otherApi.getProduct(String(BigInt(products[1]) + 1_000n))).status).toBe(404);
      const product = await sellerApi.createProduct({ stock: 5, perUserLimit: 1 });
      // ...and a sale on the seller drops the view its creation cached.
      expect((await sellerApi.purchase(product.id, 'first-buyer')).status).toBe(201);
      const read = await otherApi.getProduct(product.id);
      expect({ status: read.status, stock: read.body.stock }).toEqual({ status: 200, stock: 4 });
      expect((await otherApi.purchase(product.id, 'second-buyer')).status).toBe(201);
    } finally {
      await Promise.all([seller.close(), other.close()]);
    }
  });
});
