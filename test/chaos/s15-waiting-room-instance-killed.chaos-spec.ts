import type { ApiProcess } from '../../scripts/infra/api-process';
import { QueueCrowd } from '../support/queue-crowd';
import { InstanceClient } from '../support/queue-sale-http';
import { RedisServerProcess } from '../support/redis-server';
import { startApis } from '../support/scale-sale';
import { createTestDatabase, TestDatabase } from '../support/test-database';

jest.setTimeout(180_000);

const STOCK = 60;
const BUYERS = 200;
/** Admissions held, unused, when the instance is killed. */
const HELD_BEFORE_KILL = 30;

/**
 * A waiting room's sale across 2 instances, one SIGKILLed mid-queue while buyers hold admissions
 * they have not used yet: each of them still buys on the other instance, and the queue goes on
 * admitting in arrival order there (every instance runs the admission step when it wins the
 * step's job lock, so the survivor simply keeps winning it) until sold out.
 */
describe('chaos 15: an API instance SIGKILLed while its waiting room has buyers queued and admitted', () => {
  let db: TestDatabase;
  let redis: RedisServerProcess;
  let apis: ApiProcess[] = [];
  let clients: InstanceClient[] = [];

  beforeAll(async () => {
    [db, redis] = await Promise.all([createTestDatabase(), RedisServerProcess.start()]);
    apis = await startApis(2, { DATABASE_URL: db.url, REDIS_URL: redis.url, WAITING_ROOM_TICK_MS: '100' });
    clients = apis.map((api) => new InstanceClient(api.url, 8));
  });
  afterAll(async () => {
    clients.forEach((client) => client.close());
    await Promise.all(apis.map((api) => api.stop()));
    await redis?.stop();
    await db?.drop();
  });

  it('keeps every admission given before the kill, and sells the rest in arrival order', async () => {
    const crowd = new QueueCrowd(clients, 's15');
    await crowd.createProduct(STOCK, { admitPerSecond: 20, admissionTtlS: 120 });
    await crowd.join(BUYERS);
    // Buyers hold their admissions unused until enough are out, then instance 0 dies.
    const heldAtKill = await crowd.holdAdmissions(HELD_BEFORE_KILL, 30_000);
    expect(heldAtKill).toBeGreaterThanOrEqual(HELD_BEFORE_KILL);
    await apis[0].stop('SIGKILL');
    crowd.faulted = true;
    crowd.clients = [clients[1]];
    await crowd.finish(60_000);

    console.log(`chaos 15: ${heldAtKill} admissions held at the kill; ${crowd.bought().length} bought; unexpected ${crowd.unexpected.length}`);
    await crowd.expectSoldInArrivalOrder(STOCK, db.url);
  });
});
