import { RedisFixture, until } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';
import { LockLostError } from './errors';

jest.setTimeout(60_000);

describe('DistributedLock: Redlock renewal when nodes fail', () => {
  let nodes: RedisFixture[];
  let locks: DistributedLock;
  let extensions: number;
  let lostKeys: string[];

  beforeAll(async () => {
    nodes = await Promise.all(Array.from({ length: 5 }, () => RedisFixture.start()));
    locks = new DistributedLock(
      nodes.map((n) => n.client()),
      { defaultWaitMs: 2000 },
    );
    locks.on('extended', () => (extensions += 1));
    locks.on('lost', ({ key }) => lostKeys.push(key));
  });
  beforeEach(async () => {
    extensions = 0;
    lostKeys = [];
    await Promise.all(nodes.map((n) => n.server.restart()));
  });
  afterAll(async () => {
    await locks.close();
    await Promise.all(nodes.map((n) => n.stop()));
  });

  // Renewals every ttl / 3 (300 ms): two of them are due within a second, but on a machine whose
  // cores other suites share the watchdog's timers run late, so this waits up to 5 s for them.
  const renewals = async (count: number) => {
    const target = extensions + count;
    await until(() => extensions >= target, 5000);
  };

  it('re-claims, with its fence, a node that restarted empty, so two more failures leave a quorum', async () => {
    await locks.using('reclaim', { ttlMs: 900 }, async (signal, lock) => {
      await nodes[0].server.restart();
      const node0 = nodes[0].client();
      await until(async () => (await node0.get('lock:{reclaim}')) === lock.token);
      expect(Number(await node0.get('lock:#fence'))).toBeGreaterThanOrEqual(lock.fence);
      await Promise.all([nodes[1].server.kill(), nodes[2].server.kill()]);
      await renewals(2);
      expect(signal.aborted).toBe(false);
    });
    expect(lostKeys).toEqual([]);
  });

  it('does not re-claim a node where another token holds the key', async () => {
    await locks.using('taken', { ttlMs: 900 }, async (signal) => {
      await nodes[0].server.restart();
      const node0 = nodes[0].client();
      await node0.set('lock:{taken}', 'rival', 'PX', 60_000);
      await renewals(2);
      expect(await node0.get('lock:{taken}')).toBe('rival');
      expect(signal.aborted).toBe(false);
    });
  });

  it('keeps the lock through a minority of failed nodes and loses it when a majority fails', async () => {
    const outcome = locks.using('majority', { ttlMs: 900 }, async (signal) => {
      await Promise.all([nodes[3].server.kill(), nodes[4].server.kill()]);
      await renewals(2);
      expect(signal.aborted).toBe(false);
      await nodes[2].server.kill();
      await until(() => signal.aborted);
      expect(signal.reason).toBeInstanceOf(LockLostError);
    });
    await expect(outcome).rejects.toBeInstanceOf(LockLostError);
    expect(lostKeys).toEqual(['majority']);
  });
});
