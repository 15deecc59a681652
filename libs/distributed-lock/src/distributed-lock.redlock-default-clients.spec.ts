import type Redis from 'ioredis';
import { LOST_GRACE_MS } from './core/backends/lost-connections';
import { RedisFixture, sleep, until } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';

jest.setTimeout(60_000);

/**
 * Redlock on clients made with ioredis' defaults (offline queue on, 20 retries per command), as a
 * team that has not read the lock's README would make them. A node whose connection is lost is
 * counted down at once once it has been gone for LOST_GRACE_MS: its commands are then neither
 * waited for nor queued to run on it later.
 */
describe('DistributedLock: Redlock on default ioredis clients with a node down', () => {
  let nodes: RedisFixture[];
  let clients: Redis[];
  let locks: DistributedLock;

  beforeAll(async () => {
    nodes = await Promise.all(Array.from({ length: 3 }, () => RedisFixture.start()));
    clients = nodes.map((n) => n.client({ maxRetriesPerRequest: 20 }));
    await Promise.all(clients.map((c) => until(() => c.status === 'ready')));
    locks = new DistributedLock(clients);
  });
  afterAll(async () => {
    await locks.close();
    await Promise.all(nodes.map((n) => n.stop()));
  });

  it('locks on the two live nodes without waiting for the dead one, and never runs its commands there later', async () => {
    await nodes[2].server.kill();
    await until(() => clients[2].status === 'reconnecting');
    await sleep(LOST_GRACE_MS);

    // A 60 s lease gives the dead node a 1 s reply timeout: five locks that each waited it out
    // would take 5 s. Counted down at once, they take a few round trips to the live nodes.
    const startedAt = Date.now();
    for (let i = 0; i < 5; i++) {
      const lock = await locks.acquire(`down-node-${i}`, { ttlMs: 60_000 });
      expect(await lock.extend(60_000)).toBe(true);
      expect(await lock.release()).toBe(true);
    }
    expect(Date.now() - startedAt).toBeLessThan(2500);

    // Back, empty: had any acquire, extend or release been queued for it, the client would send
    // them on reconnecting and the fence counter would reappear.
    await nodes[2].server.restart();
    await until(() => clients[2].status === 'ready');
    const probe = nodes[2].client();
    await new Promise((settle) => setTimeout(settle, 200));
    expect(await probe.keys('*')).toEqual([]);

    const after = await locks.acquire('down-node-after', { ttlMs: 5000 });
    expect(await probe.get('lock:{down-node-after}')).toBe(after.token);
    await after.release();
  });
});
