import { RedisFixture } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';
import { LockUnavailableError } from './errors';

jest.setTimeout(60_000);

describe('DistributedLock: Redlock over 5 independent nodes', () => {
  let nodes: RedisFixture[];
  let locks: DistributedLock;
  let rival: DistributedLock;

  beforeAll(async () => {
    nodes = await Promise.all(Array.from({ length: 5 }, () => RedisFixture.start()));
    // As the app configures Redlock nodes: a command for a node whose connection is gone fails at
    // once (that node is down) instead of waiting in ioredis 6's offline queue for the reply timeout.
    const nodeClients = () =>
      Promise.all(
        nodes.map(async (n) => {
          const client = n.client({ enableOfflineQueue: false, autoResendUnfulfilledCommands: false });
          if (client.status !== 'ready') await new Promise((ready) => client.once('ready', ready));
          return client;
        }),
      );
    locks = new DistributedLock(await nodeClients(), { defaultWaitMs: 500 });
    rival = new DistributedLock(await nodeClients(), { defaultWaitMs: 300 });
  });
  afterAll(async () => {
    await Promise.all([locks.close(), rival.close()]);
    await Promise.all(nodes.map((n) => n.stop()));
  });

  it('takes the lock on every node and excludes a rival', async () => {
    const lock = await locks.acquire('quorum', { ttlMs: 2000 });
    const tokens = await Promise.all(nodes.map((n) => n.client().get('lock:{quorum}')));
    expect(tokens).toEqual(Array(5).fill(lock.token));
    expect(await rival.tryAcquire('quorum')).toBeNull();
    expect(lock.validUntil - lock.acquiredAt).toBeLessThanOrEqual(2000 - 22);
    expect(await lock.release()).toBe(true);
    expect(await Promise.all(nodes.map((n) => n.client().exists('lock:{quorum}')))).toEqual([0, 0, 0, 0, 0]);
    const next = await rival.acquire('quorum');
    expect(next.fence).toBeGreaterThan(lock.fence);
    await next.release();
  });

  it('wins on a majority when a minority of nodes holds a rival', async () => {
    await nodes[0].client().set('lock:{minority}', 'rival', 'PX', 10_000);
    await nodes[1].client().set('lock:{minority}', 'rival', 'PX', 10_000);
    const lock = await locks.acquire('minority');
    expect(await lock.extend(3000)).toBe(true);
    expect(await lock.release()).toBe(true);
    expect(await nodes[0].client().get('lock:{minority}')).toBe('rival');
  });

  it('rides out nodes that are only slow: a missed reply is no vote, not a node down', async () => {
    nodes.slice(0, 3).forEach((n) => n.server.pause());
    const resumed = new Promise<void>((resolve) =>
      setTimeout(() => {
        nodes.slice(0, 3).forEach((n) => n.server.resume());
        resolve();
      }, 500),
    );
    const lock = await locks.acquire('slow-nodes', { ttlMs: 2000, waitMs: 5000 });
    await resumed;
    expect(lock.fence).toBeGreaterThan(0);
    expect(await lock.release()).toBe(true);
  });

  it("keeps fences monotonic when the nodes' counters differ: the quorum's counters are raised to the fence", async () => {
    const counter = 'lock:#fence';
    await Promise.all(nodes.map((n, i) => n.client().set(counter, i < 2 ? '3000000000000000' : '5')));
    const first = await locks.acquire('diverge', { ttlMs: 2000 });
    expect(first.fence).toBe(3_000_000_000_000_001);
    expect(await Promise.all(nodes.map((n) => n.client().get(counter)))).toEqual(Array(5).fill('3000000000000001'));
    await first.release();
    // The next quorum is nodes 2-4 only, whose counters stood at 5 before the first acquire.
    await Promise.all(nodes.slice(0, 2).map((n) => n.client().set('lock:{diverge}', 'rival', 'PX', 10_000)));
    const second = await locks.acquire('diverge', { ttlMs: 2000 });
    expect(second.fence).toBeGreaterThan(first.fence);
    await second.release();
  });

  it('keeps working with 1 node killed, and is unavailable (not timed out) with 3 killed', async () => {
    await nodes[4].server.kill();
    const lock = await locks.acquire('survivor', { ttlMs: 2000 });
    expect(await rival.tryAcquire('survivor')).toBeNull();
    await lock.release();
    await nodes[3].server.kill();
    await nodes[2].server.kill();
    const error = await locks.acquire('survivor').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockUnavailableError);
    expect((error as Error).message).toMatch(/2 of 5 Redlock nodes/);
  });
});
