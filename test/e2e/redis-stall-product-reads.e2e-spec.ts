import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Api, injectSender, sleep } from '../support/api-client';
import { TEST_JWT_SECRET } from '../support/app-harness';
import { startInstance } from '../support/app-instance';
import { RedisServerProcess } from '../support/redis-server';
import { tableReadsOnceIdle } from '../support/table-reads';
import { createTestDatabase, TestDatabase } from '../support/test-database';

const FLOOD = 300;
const WAVES = 6;
const WAVE_GAP_MS = 250;
const READS_PER_SECOND = 50;

/**
 * An anonymous flood of reads of one product while Redis hangs (SIGSTOP: commands wait out
 * REDIS_COMMAND_TIMEOUT_MS instead of failing at once). With the shared budgets and the cached
 * view both in Redis, each read used to be a Postgres query with no budget at all. Counted from
 * the outside: Postgres's own scan counts of the `products` table, the answers, and a probe that
 * shows Redis was still stopped when the last answer came.
 */
describe('GET /products/:id while Redis is stalled', () => {
  jest.setTimeout(60_000);
  let redis: RedisServerProcess;
  let database: TestDatabase;
  let env: Record<string, string>;
  let productId: string;

  beforeAll(async () => {
    [redis, database] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      JWT_SECRET: TEST_JWT_SECRET,
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      PUBLIC_READS_PER_SECOND_PER_ADDRESS: String(READS_PER_SECOND),
      // The admission step lists open sales with a scan of products every tick: out of the window measured.
      WAITING_ROOM_TICK_MS: '10000',
    };
    const setup = await startInstance(env);
    productId = (await new Api(injectSender(setup)).createProduct({ stock: 7 })).id;
    await setup.close();
  });
  afterAll(async () => {
    await redis?.stop();
    await database?.drop();
  });

  /** `FLOOD` reads from one address, in waves that do not wait for each other's answers. */
  async function flood(app: NestFastifyApplication): Promise<Array<{ status: number; id?: string; code?: string }>> {
    const pending: Array<Promise<{ status: number; id?: string; code?: string }>> = [];
    for (let wave = 0; wave < WAVES; wave++) {
      if (wave > 0) await sleep(WAVE_GAP_MS);
      for (let i = 0; i < FLOOD / WAVES; i++)
        pending.push(
          app.inject({ method: 'GET', url: `/products/${productId}` }).then((res) => ({
            status: res.statusCode,
            id: res.json().id,
            code: res.json().code,
          })),
        );
    }
    return Promise.all(pending);
  }

  /** Whether Redis answers a PING within 300 ms. */
  async function redisAnswers(): Promise<boolean> {
    const probe = redis.client({ commandTimeout: 300, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  }

  it(`costs at most 10 Postgres reads for ${FLOOD} reads of one product, refusing part of the flood by a local budget`, async () => {
    const before = await tableReadsOnceIdle(database.name, 'products');
    const app = await startInstance({ ...env, DB_MIGRATE: 'false' });
    let answers: Array<{ status: number; id?: string; code?: string }>;
    let stalledThroughout: boolean;
    const started = Date.now();
    try {
      // Served from the view cached in Redis while it answers: no query.
      expect((await app.inject({ method: 'GET', url: `/products/${productId}` })).statusCode).toBe(200);
      redis.pause();
      try {
        answers = await flood(app);
        stalledThroughout = !(await redisAnswers());
      } finally {
        redis.resume();
      }
    } finally {
      await app.close();
    }
    const floodMs = Date.now() - started;
    const after = await tableReadsOnceIdle(database.name, 'products');
    const reads = after.seqScans - before.seqScans + (after.indexScans - before.indexScans);
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    console.log(
      `Redis SIGSTOPped for a flood of ${FLOOD} reads (${floodMs} ms, still stopped at its end: ${stalledThroughout}): ` +
        `${ok.length} answered 200, ${refused.length} 429; Postgres counted ${reads} reads of products ` +
        `(${after.indexScans - before.indexScans} index, ${after.seqScans - before.seqScans} sequential), app start included`,
    );

    expect(stalledThroughout).toBe(true);
    expect(ok.length + refused.length).toBe(FLOOD);
    expect(ok.every((a) => a.id === productId)).toBe(true);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((a) => a.code === 'RATE_LIMITED')).toBe(true);
    expect(ok.length).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(10);
  });
});
