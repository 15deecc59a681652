import type { Cluster, Redis } from 'ioredis';
import { DistributedLock } from '@app/distributed-lock';
import { RedisClusterProcess } from '../support/redis-cluster';
import { RedisSentinelGroup } from '../support/redis-sentinel';

jest.setTimeout(90_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** 3 lock instances (one client each, as 3 API processes would have) contend for one key. */
async function contend(locks: DistributedLock[], key: string, perInstance: number, holdMs: number) {
  let inside = 0;
  let overlaps = 0;
  const fences: number[] = [];
  const startedAt = Date.now();
  await Promise.all(
    locks.flatMap((lock) =>
      Array.from({ length: perInstance }, () =>
        lock.using(key, { waitMs: 60_000, ttlMs: 5000 }, async (_signal, held) => {
          inside += 1;
          if (inside > 1) overlaps += 1;
          fences.push(held.fence);
          await sleep(holdMs);
          inside -= 1;
        }),
      ),
    ),
  );
  return { overlaps, fences, elapsedMs: Date.now() - startedAt };
}

function expectIncreasing(fences: number[]): void {
  expect(fences.every((f, i) => i === 0 || f > fences[i - 1])).toBe(true);
}

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

  it('one holder at a time across 3 instances; fences increase; handoffs arrive by sharded pub/sub', async () => {
    const { overlaps, fences, elapsedMs } = await contend(locks, 'stock:hot', 15, 5);
    expect(overlaps).toBe(0);
    expect(fences).toHaveLength(45);
    expectIncreasing(fences);
    // Queued waiters poll every 200-400 ms; 45 handoffs that had to be found by polling would
    // take > 9 s. Notified handoffs take a round trip each.
    expect(elapsedMs).toBeLessThan(6000);
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
    await sleep(200); // let the replica catch up (replication is asynchronous)
    const primary = await cluster.primaryOf('lock:{stock:failover}');
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

describe('lock library on Redis Sentinel (primary, replica, 3 Sentinels)', () => {
  let group: RedisSentinelGroup;
  let clients: Redis[];
  let locks: DistributedLock[];

  beforeAll(async () => {
    group = await RedisSentinelGroup.start();
    clients = [0, 1, 2].map(() => group.client());
    clients.forEach((c) => c.on('error', () => undefined));
    locks = clients.map((c) => new DistributedLock(c, { defaultTtlMs: 5000, waitForReplicas: { replicas: 1, timeoutMs: 500 } }));
  });
  afterAll(async () => {
    await Promise.all(locks.map((l) => l.close()));
    clients.forEach((c) => c.disconnect());
    await group.stop();
  });

  it('one holder at a time across 3 instances, with WAIT for the replica on every acquire', async () => {
    const { overlaps, fences, elapsedMs } = await contend(locks, 'stock:hot', 10, 5);
    expect(overlaps).toBe(0);
    expectIncreasing(fences);
    expect(elapsedMs).toBeLessThan(6000);
  });

  it('after the master is killed, Sentinel promotes the replica and the fence carries on above', async () => {
    const before = await locks[0].acquire('stock:failover', { ttlMs: 1000 });
    await before.release();
    const master = await group.master();
    const killedAt = Date.now();
    await master.kill();
    const plain = group.client();
    plain.on('error', () => undefined);
    const noWait = new DistributedLock(plain);
    let after;
    while (!after && Date.now() - killedAt < 30_000) {
      after = await noWait.tryAcquire('stock:failover').catch(() => undefined);
      if (!after) await sleep(100);
    }
    expect(after).toBeDefined();
    expect(after!.fence).toBeGreaterThan(before.fence); // WAIT made the counter reach the replica
    console.log(`sentinel failover: locks usable again ${Date.now() - killedAt} ms after the kill`);
    await after!.release();
    await noWait.close();
    plain.disconnect();
    // The only replica is now the master: WAIT for 1 replica cannot be met, acquires refuse.
    await expect(locks[0].acquire('stock:x', { waitMs: 200 })).rejects.toThrow(/replica/i);
  });
});

describe('the failover window: a lock the replica never saw', () => {
  let group: RedisSentinelGroup;

  beforeAll(async () => {
    group = await RedisSentinelGroup.start();
  });
  afterAll(() => group.stop());

  it('without WAIT a second holder gets the lock after failover, with a fence that went backwards; WAIT refuses the first', async () => {
    const [a, b] = [group.client(), group.client()];
    [a, b].forEach((c) => c.on('error', () => undefined));
    const first = new DistributedLock(a, { defaultTtlMs: 30_000 });
    const waited = new DistributedLock(a, { waitForReplicas: { replicas: 1, timeoutMs: 200 } });
    const master = await group.master();
    const replica = group.servers.find((s) => s !== master)!;
    await (await first.acquire('stock:window')).release(); // fence 1 reaches the replica
    await sleep(200);
    // Replication stalls (the replica is stopped and its link cut): what follows is on the master only.
    replica.pause();
    const admin = master.client();
    await admin.call('CLIENT', 'KILL', 'TYPE', 'replica');
    admin.disconnect();
    const held = await first.acquire('stock:window');
    await expect(waited.acquire('stock:other', { waitMs: 100 })).rejects.toThrow(/replica/i);
    await master.kill();
    replica.resume();
    await group.waitForFailover(master, 30_000);
    const second = new DistributedLock(b);
    let stolen;
    for (let i = 0; i < 100 && !stolen; i++) {
      stolen = await second.tryAcquire('stock:window').catch(() => undefined);
      if (!stolen) await sleep(100);
    }
    // Two holders at once: the lease of `held` (30 s) is not over, yet another process holds the key.
    expect(stolen).toBeDefined();
    expect(stolen!.fence).toBeLessThanOrEqual(held.fence); // Postgres (lock_fence <= $fence) refuses it
    await Promise.all([first.close(), waited.close(), second.close()]);
    [a, b].forEach((c) => c.disconnect());
  });
});
