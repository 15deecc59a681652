import type { ApiProcess } from '../../scripts/infra/api-process';
import { RedisClusterProcess } from '../support/redis-cluster';
import { runScaleSale, SaleFigures, startApis } from '../support/scale-sale';
import { createTestDatabase, TestDatabase } from '../support/test-database';

jest.setTimeout(180_000);

/** Kills the primary that owns the product's slot; resolves once the Cluster serves the slot again. */
async function killOwnerOf(cluster: RedisClusterProcess, productId: string): Promise<void> {
  const owner = await cluster.primaryOf(`{stock:${productId}}`);
  await owner.kill();
  await cluster.waitUntilHealthy(30_000);
}

describe('3 API instances on a Redis Cluster (3 primaries, 3 replicas)', () => {
  let cluster: RedisClusterProcess;
  let db: TestDatabase;
  let apis: ApiProcess[] = [];
  const figures: Record<string, SaleFigures> = {};
  const env = () => ({ DATABASE_URL: db.url, ...cluster.env, REDIS_KEY_PREFIX: `${db.name}:` });

  beforeAll(async () => {
    [cluster, db] = await Promise.all([RedisClusterProcess.start(), createTestDatabase()]);
    apis = await startApis(3, env());
  });
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.stop()));
    await cluster?.stop();
    await db?.drop();
    console.log(`cluster figures ${JSON.stringify(figures, null, 1)}`);
  });

  it('sells exactly the stock', async () => {
    figures.steady = await runScaleSale({ apis, databaseUrl: db.url, stock: 150 });
    expect(figures.steady.purchases).toBe(150);
  });

  it('survives the kill of the primary owning the hot product slot mid-sale', async () => {
    figures.failover = await runScaleSale({ apis, databaseUrl: db.url, stock: 300, fault: (id) => killOwnerOf(cluster, id) });
    expect(figures.failover.purchases).toBe(300);
  });

  it('with LOCK_WAIT_FOR_REPLICAS=1:100, the same kill', async () => {
    // The killed node comes back empty and rejoins as a replica of the promoted one.
    await Promise.all(cluster.nodes.filter((n) => n.pid === undefined).map((n) => n.restart()));
    await cluster.waitUntilHealthy(30_000);
    await Promise.all(apis.map((api) => api.stop()));
    apis = await startApis(3, { ...env(), LOCK_WAIT_FOR_REPLICAS: '1:100' });
    figures.failoverWithWait = await runScaleSale({ apis, databaseUrl: db.url, stock: 300, fault: (id) => killOwnerOf(cluster, id) });
    expect(figures.failoverWithWait.purchases).toBe(300);
  });
});
