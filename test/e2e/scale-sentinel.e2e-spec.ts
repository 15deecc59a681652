import type { ApiProcess } from '../../scripts/infra/api-process';
import { RedisServerProcess } from '../support/redis-server';
import { RedisSentinelGroup } from '../support/redis-sentinel';
import { runScaleSale, SaleFigures, startApis } from '../support/scale-sale';
import { createTestDatabase, TestDatabase } from '../support/test-database';

jest.setTimeout(180_000);

/** Kills the current master; resolves once Sentinels promoted the replica. */
async function killMaster(group: RedisSentinelGroup): Promise<RedisServerProcess> {
  const master = await group.master();
  await master.kill();
  await group.waitForFailover(master, 30_000);
  return master;
}

describe('3 API instances on Redis Sentinel (primary, replica, 3 Sentinels)', () => {
  let group: RedisSentinelGroup;
  let db: TestDatabase;
  let apis: ApiProcess[] = [];
  const figures: Record<string, SaleFigures> = {};
  const env = () => ({ DATABASE_URL: db.url, ...group.env });

  beforeAll(async () => {
    [group, db] = await Promise.all([RedisSentinelGroup.start(), createTestDatabase()]);
    apis = await startApis(3, env());
  });
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.stop()));
    await group?.stop();
    await db?.drop();
    console.log(`sentinel figures ${JSON.stringify(figures, null, 1)}`);
  });

  it('sells exactly the stock', async () => {
    figures.steady = await runScaleSale({ apis, databaseUrl: db.url, stock: 150 });
    expect(figures.steady.purchases).toBe(150);
  });

  it('survives the kill of the master mid-sale', async () => {
    let killed: RedisServerProcess | undefined;
    figures.failover = await runScaleSale({ apis, databaseUrl: db.url, stock: 300, fault: async () => void (killed = await killMaster(group)) });
    expect(figures.failover.purchases).toBe(300);
    // The old master comes back empty as a replica of the new one (Sentinel reconfigures it).
    await killed!.restart();
  });

  it('with LOCK_WAIT_FOR_REPLICAS=1:100, the same kill', async () => {
    await group.waitForReplicaInSync(30_000);
    await Promise.all(apis.map((api) => api.stop()));
    apis = await startApis(3, { ...env(), LOCK_WAIT_FOR_REPLICAS: '1:100' });
    figures.failoverWithWait = await runScaleSale({ apis, databaseUrl: db.url, stock: 300, fault: () => killMaster(group).then(() => undefined) });
    expect(figures.failoverWithWait.purchases).toBe(300);
  });
});
