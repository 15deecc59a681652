import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { TEST_JWT_SECRET } from '../support/app-harness';
import { startInstance } from '../support/app-instance';
import { RedisServerProcess } from '../support/redis-server';
import { tableReadsOnceIdle } from '../support/table-reads';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { adminAuth, auth } from '../support/tokens';

const SHARED = 'order-1';
// Enough orders that Postgres reads the table through an index whenever it has one that fits.
const OTHER_ORDERS = 20_000;

/**
 * A purchase id (the buyer's Idempotency-Key, or a generated one) is unique per buyer only: two
 * buyers may both send `order-1`. An admin's lookup by id alone used to answer one of them
 * (ORDER BY id LIMIT 1 over a scan of the whole table, the unique index leading with the user).
 * Now an admin names the buyer or is shown every match, and Postgres reads `orders` through an
 * index for each, counted from its side.
 */
describe('GET /purchases/:id for an id two buyers used', () => {
  jest.setTimeout(60_000);
  let redis: RedisServerProcess;
  let database: TestDatabase;
  let env: Record<string, string>;
  const orderOf: Record<string, string> = {};

  beforeAll(async () => {
    [redis, database] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_PER_SECOND: '1000',
      // The expiry job reads orders on its own schedule: out of the window measured.
      ORDER_EXPIRY_INTERVAL_MS: '3600000',
    };
    const setup = await startInstance(env);
    const product = await setup.inject({
      method: 'POST',
      url: '/admin/products',
      headers: adminAuth(),
      payload: { sku: 'LOOKUP-1', name: 'shared key', priceCents: 100, stock: 50, perUserLimit: 5 },
    });
    for (const buyer of ['alice', 'bob']) {
      const bought = await setup.inject({
        method: 'POST',
        url: `/products/${product.json().id}/purchase`,
        headers: { ...auth(buyer), 'idempotency-key': SHARED },
        payload: { quantity: 1 },
      });
      expect(bought.statusCode).toBe(201);
      orderOf[buyer] = bought.json().id;
    }
    const db = new Client({ connectionString: database.url });
    await db.connect();
    await db.query(
      `INSERT INTO orders (product_id, user_id, quantity, status, idempotency_key, expires_at)
       SELECT $1, 'buyer-' || g, 1, 'CANCELLED', 'p-' || g, now() FROM generate_series(1, $2::int) AS g`,
      [product.json().id, OTHER_ORDERS],
    );
    await db.query('ANALYZE orders');
    await db.end();
    await setup.close();
  });
  afterAll(async () => {
    await redis?.stop();
    await database?.drop();
  });

  const ask = (app: NestFastifyApplication, who: Record<string, string>, query = '', id = SHARED) =>
    app.inject({ method: 'GET', url: `/purchases/${id}${query}`, headers: who });

  it("answers an admin every buyer's purchase, or the one named, a buyer their own, each through an index", async () => {
    const before = await tableReadsOnceIdle(database.name, 'orders');
    const app = await startInstance({ ...env, DB_MIGRATE: 'false' });

    const every = await ask(app, adminAuth());
    expect(every.statusCode).toBe(200);
    expect(every.json()).toMatchObject({
      purchaseId: SHARED,
      state: 'CREATED',
      order: { id: orderOf.alice, userId: 'alice' },
    });
    expect(every.json().matches).toEqual([
      expect.objectContaining({
        userId: 'alice',
        purchaseId: SHARED,
        state: 'CREATED',
        order: expect.objectContaining({ id: orderOf.alice }),
      }),
      expect.objectContaining({
        userId: 'bob',
        purchaseId: SHARED,
        state: 'CREATED',
        order: expect.objectContaining({ id: orderOf.bob }),
      }),
    ]);

    const named = await ask(app, adminAuth(), '?userId=bob');
    expect(named.statusCode).toBe(200);
    expect(named.json()).toEqual({
      purchaseId: SHARED,
      state: 'CREATED',
      order: expect.objectContaining({ id: orderOf.bob, userId: 'bob' }),
    });
    expect((await ask(app, adminAuth(), '?userId=carol')).json()).toMatchObject({
      statusCode: 404,
      code: 'PURCHASE_NOT_FOUND',
    });
    expect((await ask(app, adminAuth(), '', 'p-none')).json()).toMatchObject({
      statusCode: 404,
      code: 'PURCHASE_NOT_FOUND',
    });

    const own = await ask(app, auth('alice'));
    expect(own.json()).toEqual({
      purchaseId: SHARED,
      state: 'CREATED',
      order: expect.objectContaining({ id: orderOf.alice }),
    });
    expect((await ask(app, auth('alice'), '?userId=alice')).json().order.id).toBe(orderOf.alice);
    expect((await ask(app, auth('alice'), '?userId=bob')).json()).toMatchObject({ statusCode: 403, code: 'FORBIDDEN' });
    expect((await ask(app, auth('carol'))).json()).toMatchObject({ statusCode: 404, code: 'PURCHASE_NOT_FOUND' });

    for (let i = 0; i < 20; i++) expect((await ask(app, adminAuth())).json().matches).toHaveLength(2);
    await app.close();
    const after = await tableReadsOnceIdle(database.name, 'orders');
    const reads = { seqScans: after.seqScans - before.seqScans, indexScans: after.indexScans - before.indexScans };
    console.log(
      `27 lookups among ${OTHER_ORDERS + 2} orders: Postgres counted ${reads.seqScans} sequential and ${reads.indexScans} index scans of orders`,
    );
    expect(reads.seqScans).toBe(0);
    expect(reads.indexScans).toBeGreaterThanOrEqual(25);
  });
});
