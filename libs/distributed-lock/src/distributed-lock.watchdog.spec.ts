import { RedisFixture, sleep } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';
import { LockLostError } from './errors';

jest.setTimeout(30_000);

describe('DistributedLock: the watchdog of using()', () => {
  let redis: RedisFixture;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  afterAll(() => redis.stop());

  it('keeps renewing the lease while the work runs longer than the ttl', async () => {
    const locks = new DistributedLock(redis.client());
    const extended: unknown[] = [];
    locks.on('extended', (e) => extended.push(e));
    // A ttl of 1 s, renewed every third of it: a CI run beside the other jest workers once starved
    // this process past a 400 ms lease, and the watchdog rightly gave the lock up.
    const result = await locks.using('long-work', { ttlMs: 1000 }, async (signal, lock) => {
      await sleep(3500);
      expect(signal.aborted).toBe(false);
      expect(await redis.client().get('lock:{long-work}')).toBe(lock.token);
      return 'finished';
    });
    expect(result).toBe('finished');
    expect(extended.length).toBeGreaterThanOrEqual(3);
    const atRelease = extended.length;
    await sleep(500);
    expect(extended.length).toBe(atRelease); // renewals stop with the release
    await locks.close();
  });

  it('renews all the locks of the process in one pipeline per tick', async () => {
    const client = redis.client();
    const pipelines = jest.spyOn(client, 'pipeline');
    const locks = new DistributedLock(client);
    let extensions = 0;
    locks.on('extended', () => (extensions += 1));
    await Promise.all(['p1', 'p2', 'p3', 'p4'].map((key) => locks.using(key, { ttlMs: 600 }, () => sleep(1300))));
    expect(extensions).toBeGreaterThanOrEqual(8);
    expect(pipelines.mock.calls.length).toBeLessThanOrEqual(extensions / 2);
    await locks.close();
  });

  it('aborts the signal, emits lost and throws LockLostError when a renewal finds the lock taken', async () => {
    const locks = new DistributedLock(redis.client());
    const lost: unknown[] = [];
    locks.on('lost', (e) => lost.push(e));
    const outcome = locks.using('stolen', { ttlMs: 600 }, async (signal) => {
      await redis.client().set('lock:{stolen}', 'someone-else', 'PX', 5000);
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      expect(signal.reason).toBeInstanceOf(LockLostError);
      return 'returned normally';
    });
    await expect(outcome).rejects.toBeInstanceOf(LockLostError);
    expect(lost).toEqual([{ key: 'stolen', holdMs: expect.any(Number) }]);
    expect(await redis.client().get('lock:{stolen}')).toBe('someone-else');
    await locks.close();
  });

  it("rethrows the work's own error and still releases", async () => {
    const locks = new DistributedLock(redis.client());
    await expect(
      locks.using('failing', {}, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await redis.client().exists('lock:{failing}')).toBe(0);
    await locks.close();
  });
});
