import type { Cluster } from 'ioredis';
import { DistributedLock } from '@app/distributed-lock';
import { contend, expectIncreasing, listenForWakes, replicasCaughtUp, sleep } from '../support/lock-contention';
import { RedisClusterProcess } from '../support/redis-cluster';
import { expectPasswordsRequired } from '../support/redis-auth';

jest.setTimeout(90_000);

describe('lock library on a real Redis Cluster (3 primaries, 3 replicas)', () => {
  let cluster: RedisClusterProcess;
  let clients: Cluster[];
  let locks: DistributedLock[];

  beforeAll(async () => {
    cluster = await RedisClusterProcess.start();
    clients = [0, 1, 2].map(() => cluster.client());
    clients.forEach((c) => c.on('error', () => undefined));
    locks = clients.map((c) => new DistributedLock(c, { defaultTtlMs: 5000 }));
  });
  afterAll(async () => {
    await Promise.all(locks.map((l) => l.close()));
    clients.forEach((c) => c.disconnect());
    await cluster.stop();
  });

  it('runs with passwords: every node refuses a client without one; the app connects with its configuration', async () => {
    await expectPasswordsRequired(cluster.nodes.map((node) => node.port), cluster.env, 'REDIS_PASSWORD');
  });

  it('one holder at a time across 3 instances; fences increase; handoffs are announced by sharded pub/sub', async () => {
    const owner = await cluster.primaryOf('lock:{stock:hot}');
    const wakes = await listenForWakes(owner.client(), 'lock:{stock:hot}#wake', true);
    const { overlaps, fences, crossInstanceHandoffs } = await contend(locks, 'stock:hot', 15, 5);
    wakes.close();
    expect(overlaps).toBe(0);
    expect(fences).toHaveLength(45);
    expectIncreasing(fences);
    // Each time the lock passed to another process, the release said so on the shard's channel
    // (waiters of other processes are woken, not left to find the lock by polling).
    expect(crossInstanceHandoffs).toBeGreaterThan(0);
    expect(wakes.count()).toBeGreaterThanOrEqual(crossInstanceHandoffs);
  });

  it('waiters listen by SSUBSCRIBE on the shard that owns the key', async () => {
    const held = await locks[0].acquire('stock:sharded');
    const waiting = locks[1].acquire('stock:sharded', { waitMs: 5000 });
    const owner = (await cluster.primaryOf('lock:{stock:sharded}')).client();
    let subscribers = 0;
    for (let i = 0; i < 50 && subscribers === 0; i++) {
      const reply = (await owner.call('PUBSUB', 'SHARDNUMSUB', 'lock:{stock:sharded}#wake')) as [string, number];
      subscribers = Number(reply[1]);
      if (subscribers === 0) await sleep(50);
    }
    owner.disconnect();
    expect(subscribers).toBe(1);
    await held.release();
    const next = await waiting;
    expect(next.fence).toBeGreaterThan(held.fence);
    await next.release();
  });

  it('WAITs for the replica of the shard that holds the lock', async () => {
    const waiting = new DistributedLock(clients[0], { waitForReplicas: { replicas: 1, timeoutMs: 1000 } });
    const { overlaps } = await contend([waiting, locks[1], locks[2]], 'stock:waited', 5, 2);
    expect(overlaps).toBe(0);
    const multi = await waiting.acquire(['stock:w1', 'stock:w2', '{stock:w1}:extra']);
    await multi.release();
    await waiting.close();
  });

  it('takes keys of one slot in one script, and keys of different slots one by one', async () => {
    const [a, b] = locks;
    const together = await a.acquire(['{p1}:stock', '{p1}:coupon']);
    expect(await b.tryAcquire('{p1}:coupon')).toBeNull();
    const spread = await b.acquire(['stock:1', 'stock:2', 'stock:3']);
    expect(await a.tryAcquire('stock:2')).toBeNull();
    await Promise.all([together.release(), spread.release()]);
    const again = await a.tryAcquire(['stock:1', 'stock:2', 'stock:3']);
    expect(again?.fence).toBeGreaterThan(spread.fence);
    await again?.release();
  });

  it('after the primary of the key is killed, locks work again once a replica took over, fences still above', async () => {
    const before = await locks[0].acquire('stock:failover', { ttlMs: 1000 });
    await before.release();
    const primary = await cluster.primaryOf('lock:{stock:failover}');
    await replicasCaughtUp(primary);
    const killedAt = Date.now();
    await primary.kill();
    let after;
    while (!after && Date.now() - killedAt < 30_000) {
      after = await locks[1].tryAcquire('stock:failover').catch(() => undefined);
      if (!after) await sleep(100);
    }
    expect(after).toBeDefined();
    expect(after!.fence).toBeGreaterThan(before.fence);
    await after!.release();
    console.log(`cluster failover: locks usable again ${Date.now() - killedAt} ms after the kill`);
    const { overlaps } = await contend(locks, 'stock:failover', 5, 2);
    expect(overlaps).toBe(0);
  });
});
