import { RedisFixture, sleep } from '../test/redis-fixture';
import { spawnWorker } from '../test/spawn-worker';
import { DistributedLock } from './distributed-lock';

jest.setTimeout(120_000);

describe('DistributedLock: mutual exclusion', () => {
  let redis: RedisFixture;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  afterAll(() => redis.stop());

  it('lets only one of 100 contenders in one process act at a time', async () => {
    const locks = new DistributedLock(redis.client(), { defaultTtlMs: 5000, defaultWaitMs: 60_000 });
    let inside = 0;
    let overlaps = 0;
    let sections = 0;
    const fences: number[] = [];
    await Promise.all(
      Array.from({ length: 100 }, () =>
        locks.using('hot', {}, async (_signal, lock) => {
          inside += 1;
          if (inside > 1) overlaps += 1;
          fences.push(lock.fence);
          await sleep(1);
          inside -= 1;
          sections += 1;
        }),
      ),
    );
    await locks.close();
    expect(overlaps).toBe(0);
    expect(sections).toBe(100);
    expect(fences).toEqual([...fences].sort((a, b) => a - b));
  });

  it('lets only one holder act at a time across three processes', async () => {
    const client = redis.client();
    await client.del('inside', 'overlaps', 'sections');
    const workers = [0, 1, 2].map(() => spawnWorker(['exclusion', redis.server.port, 'shared', 40]));
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0]);
    expect(await client.get('sections')).toBe('120');
    expect(await client.get('overlaps')).toBeNull();
  });
});
