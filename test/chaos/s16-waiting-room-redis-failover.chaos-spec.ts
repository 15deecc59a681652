import type { ApiProcess } from '../../scripts/infra/api-process';
import { replicasCaughtUp } from '../support/lock-contention';
import { QueueCrowd } from '../support/queue-crowd';
import { InstanceClient } from '../support/queue-sale-http';
import { RedisSentinelGroup } from '../support/redis-sentinel';
import { startApis } from '../support/scale-sale';
import { createTestDatabase, TestDatabase } from '../support/test-database';

jest.setTimeout(180_000);

const STOCK = 60;
const BUYERS = 200;
const HELD_BEFORE_FAILOVER = 30;

/**
 * A waiting room on Redis under Sentinel (primary, replica, 3 Sentinels), 2 instances: the
 * primary is killed while buyers hold admissions, once the replica has caught up (Redis
 * replicates asynchronously: what the replica has not received is lost in any failover, so the
 * test makes the admissions the buyers were shown part of what it has). After the promotion the
 * queue routes recover by themselves, the held admissions still buy, and the sale ends in
 * arrival order with Postgres agreeing.
 */
describe('chaos 16: Redis failover under Sentinel while a waiting room has admissions out', () => {
  let group: RedisSentinelGroup;
  let db: TestDatabase;
  let apis: ApiProcess[] = [];
  let clients: InstanceClient[] = [];

  beforeAll(async () => {
    [group, db] = await Promise.all([RedisSentinelGroup.start(), createTestDatabase()]);
    apis = await startApis(2, { DATABASE_URL: db.url, ...group.env, WAITING_ROOM_TICK_MS: '100' });
    clients = apis.map((api) => new InstanceClient(api.url, 8));
  });
  afterAll(async () => {
    clients.forEach((client) => client.close());
    await Promise.all(apis.map((api) => api.stop()));
    await group?.stop();
    await db?.drop();
  });

  it('recovers after the promotion: held admissions buy, the rest sell in arrival order', async () => {
    const crowd = new QueueCrowd(clients, 's16');
    await crowd.createProduct(STOCK, { admitPerSecond: 20, admissionTtlS: 120 });
    await crowd.join(BUYERS);
    const heldAtFailover = await crowd.holdAdmissions(HELD_BEFORE_FAILOVER, 30_000);
    expect(heldAtFailover).toBeGreaterThanOrEqual(HELD_BEFORE_FAILOVER);
    // Online is not enough: the replica must have acknowledged every write made up to now, the
    // admissions the buyers were shown among them, or the failover may lose some of them.
    const master = await group.master();
    await replicasCaughtUp(master, 10_000);
    const failoverStartedAt = Date.now();
    await master.kill();
    crowd.faulted = true;
    await group.waitForFailover(master, 30_000);
    const failoverMs = Date.now() - failoverStartedAt;
    await crowd.finish(90_000);

    console.log(`chaos 16: ${heldAtFailover} admissions held; failover ${failoverMs} ms; ${crowd.bought().length} bought; unexpected ${crowd.unexpected.length}`);
    await crowd.expectSoldInArrivalOrder(STOCK, db.url);
  });
});
