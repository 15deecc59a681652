import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Api, ApiResponse, expectContractError, injectSender } from '../support/api-client';
import { startInstance, TEST_JWT_SECRET } from '../support/app-harness';
import { pinRateWindow } from '../support/rate-clock';
import { RedisServerProcess } from '../support/redis-server';
import { tableReadsOnceIdle } from '../support/table-reads';
import { createTestDatabase, TestDatabase } from '../support/test-database';

const BUDGET = 20;
const ATTEMPTS = 60;

/**
 * A user's retries carrying Idempotency-Keys, refused before their purchase could be made: the
 * per-user budget is spent before anything that can reach Postgres, and a refused key is looked
 * up among the orders only when this user has sent it to be bought before. Judged from the
 * outside: the answers, and Postgres's own scan counts of `orders` (read once every session of
 * an instance has ended, when they are complete).
 */
describe('keyed purchases refused before they reach the database', () => {
  jest.setTimeout(90_000);
  let redis: RedisServerProcess;
  let database: TestDatabase;
  let env: Record<string, string>;
  let notOpen: string;
  let soldOut: string;
  let kept: ApiResponse;

  /** Runs `work` against a fresh instance on the suite's data, closed afterwards. */
  async function withInstance<T>(work: (api: Api, app: NestFastifyApplication) => Promise<T>): Promise<T> {
    const app: NestFastifyApplication = await startInstance(env);
    try {
      return await work(new Api(injectSender(app)), app);
    } finally {
      await app.close();
    }
  }

  beforeAll(async () => {
    [redis, database] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_PER_SECOND: String(BUDGET),
      // No background job reads orders while they are counted.
      ORDER_EXPIRY_INTERVAL_MS: '600000',
    };
    await withInstance(async (api) => {
      notOpen = (
        await api.createProduct({
          stock: 10,
          perUserLimit: 5,
          saleStartsAt: new Date(Date.now() + 3600_000).toISOString(),
        })
      ).id;
      soldOut = (await api.createProduct({ stock: 1, perUserLimit: 1 })).id;
      kept = await api.purchase(soldOut, 'returning-buyer', { idempotencyKey: 'kept-key' });
      expect(kept.status).toBe(201);
      expectContractError(await api.purchase(soldOut, 'late-buyer'), 409, 'SOLD_OUT');
    });
  });
  afterAll(async () => {
    await redis?.stop();
    await database?.drop();
  });

  it(`answers ${ATTEMPTS} parallel keyed purchases of a sale not yet open with 429 past the budget, reading no orders`, async () => {
    const before = await tableReadsOnceIdle(database.name, 'orders');
    const answers = await withInstance(async (api, app) => {
      // One rate window for the whole burst, however long it takes.
      const unpin = pinRateWindow(app, Math.floor(Date.now() / 1000) * 1000 + 20);
      try {
        return await Promise.all(
          Array.from({ length: ATTEMPTS }, (_, i) =>
            api.purchase(notOpen, 'storm-user', { idempotencyKey: `storm-${i}` }),
          ),
        );
      } finally {
        unpin();
      }
    });
    const after = await tableReadsOnceIdle(database.name, 'orders');

    const codes = answers.map((res: ApiResponse) => `${res.status} ${res.body?.code}`);
    const scans = { seqScans: after.seqScans - before.seqScans, indexScans: after.indexScans - before.indexScans };
    const count = (code: string) => codes.filter((c) => c === code).length;
    process.stdout.write(
      `${ATTEMPTS} keyed refusals: ${count('403 SALE_NOT_ACTIVE')} x 403, ${count('429 RATE_LIMITED')} x 429; orders scans: ${JSON.stringify(scans)}\n`,
    );
    expect(count('403 SALE_NOT_ACTIVE')).toBe(BUDGET);
    expect(count('429 RATE_LIMITED')).toBe(ATTEMPTS - BUDGET);
    expect(scans).toEqual({ seqScans: 0, indexScans: 0 });
  });

  it('still answers a retried key with its first answer when the sale now refuses it, and a new key with the refusal', async () => {
    // The key was sent to be bought by the first instance: the marker it left is what sends these to the orders.
    await withInstance(async (api) => {
      const replay = await api.purchase(soldOut, 'returning-buyer', { idempotencyKey: 'kept-key' });
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(kept.body);
      expectContractError(
        await api.purchase(soldOut, 'returning-buyer', { idempotencyKey: 'fresh-key' }),
        409,
        'SOLD_OUT',
      );
      expectContractError(
        await api.purchase(soldOut, 'returning-buyer', { idempotencyKey: 'kept-key', quantity: 2 }),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
    });
  });
});
