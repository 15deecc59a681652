import type { Redis } from 'ioredis';
import { DistributedLock } from '@app/distributed-lock';
import { contend, expectIncreasing, listenForWakes, replicasCaughtUp, sleep } from '../support/lock-contention';
import { expectPasswordsRequired } from '../support/redis-auth';
import { RedisSentinelGroup } from '../support/redis-sentinel';

jest.setTimeout(90_000);

/** Until `client` answers ROLE as a master (Sentinel reconnects each client in its own time). */
async function untilMaster(client: Redis): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const role = await client.call('ROLE').catch(() => undefined);
    if (Array.isArray(role) && role[0] === 'master') return;
    await sleep(100);
  }
  throw new Error('the client never reached a master');
}

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

  it('runs with passwords: every node and Sentinel refuses a client without one; the app connects with its configuration', async () => {
    await expectPasswordsRequired([...group.servers.map((s) => s.port), ...group.sentinelPorts], group.env, 'REDIS_SENTINEL_PASSWORD');
  });

  it('one holder at a time across 3 instances, with WAIT for the replica on every acquire', async () => {
    const wakes = await listenForWakes((await group.master()).client(), 'lock:{stock:hot}#wake', false);
    const { overlaps, fences, crossInstanceHandoffs } = await contend(locks, 'stock:hot', 10, 5);
    wakes.close();
    expect(overlaps).toBe(0);
    expect(fences).toHaveLength(30);
    expectIncreasing(fences);
    // Each handoff to another process was announced to its waiters on the channel.
    expect(crossInstanceHandoffs).toBeGreaterThan(0);
    expect(wakes.count()).toBeGreaterThanOrEqual(crossInstanceHandoffs);
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
    // The only replica is now the master: WAIT for 1 replica cannot be met, acquires refuse. Asked
    // only once this instance's client reaches the new master; before, it answers "did not answer".
    await untilMaster(clients[0]);
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
    await (await first.acquire('stock:window')).release();
    await replicasCaughtUp(master); // fence 1 reached the replica
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
    // Only once b reaches the new master: an attempt sent while it still looks for one may run
    // there after its caller gave up, and each such attempt takes a fence of its own.
    await untilMaster(b);
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
