import { RedisFixture, sleep, until } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';
import { LockUnavailableError } from './errors';

describe('DistributedLock: multi-key locks and close()', () => {
  let redis: RedisFixture;
  let locks: DistributedLock;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    locks = new DistributedLock(redis.client(), { defaultWaitMs: 2000 });
  });
  afterEach(() => locks.close());
  afterAll(() => redis.stop());

  it('locks several keys at once under their canonical order', async () => {
    const lock = await locks.acquire(['b', 'a', 'b']);
    expect(lock.keys).toEqual(['a', 'b']);
    expect(lock.key).toBe('a,b');
    const client = redis.client();
    expect(await client.mget('lock:{a}', 'lock:{b}')).toEqual([lock.token, lock.token]);
    expect(await locks.tryAcquire('a')).toBeNull();
    expect(await lock.release()).toBe(true);
    expect(await client.exists('lock:{a}', 'lock:{b}')).toBe(0);
  });

  it('takes all keys or none', async () => {
    const other = new DistributedLock(redis.client());
    const b = await other.acquire('all-b');
    expect(await locks.tryAcquire(['all-a', 'all-b'])).toBeNull();
    expect(await redis.client().exists('lock:{all-a}')).toBe(0);
    setTimeout(() => void b.release(), 200);
    const both = await locks.acquire(['all-a', 'all-b'], { waitMs: 3000 });
    expect(both.keys).toEqual(['all-a', 'all-b']);
    await both.release();
    await other.close();
  });

  it('gives a multi-key lock one fence that is monotonic for each of its keys', async () => {
    const single = await locks.acquire('f-a');
    await single.release();
    let lastB = 0;
    for (let i = 0; i < 3; i++) {
      const b = await locks.acquire('f-b');
      lastB = b.fence;
      await b.release();
    }
    const multi = await locks.acquire(['f-a', 'f-b']);
    expect(multi.fence).toBe(Math.max(single.fence, lastB) + 1); // one above the highest counter
    await multi.release();
    const afterA = await locks.acquire('f-a');
    const afterB = await locks.acquire('f-b');
    expect(afterA.fence).toBeGreaterThan(multi.fence);
    expect(afterB.fence).toBeGreaterThan(multi.fence);
  });

  it('hands a key released by a multi-key holder to a queued single-key waiter', async () => {
    const multi = await locks.acquire(['h-a', 'h-b']);
    const waiter = locks.acquire('h-b', { waitMs: 3000 });
    await sleep(100);
    await multi.release();
    const lock = await waiter;
    expect(lock.fence).toBeGreaterThan(multi.fence);
    await lock.release();
  });

  it('wakes a multi-key waiter with the announcement of a single key it waits for', async () => {
    const heard: string[] = [];
    const listener = redis.client();
    const admin = redis.client();
    const other = new DistributedLock(redis.client());
    try {
      await listener.subscribe('lock:{w-a}#wake');
      listener.on('message', (_channel: string, message: string) => heard.push(message));
      const single = await other.acquire('w-a');
      const multi = locks.acquire(['w-a', 'w-b'], { waitMs: 3000 });
      // The waiter, refused, listens on the key that blocks it (beside this test's listener).
      await until(async () => (await admin.pubsub('NUMSUB', 'lock:{w-a}#wake'))[1] === 2);
      expect(await single.release()).toBe(true);
      const both = await multi;
      expect(both.keys).toEqual(['w-a', 'w-b']);
      await until(() => heard.length > 0);
      expect(heard).toEqual(['f']);
      await both.release();
    } finally {
      await other.close();
      await listener.quit();
    }
  });

  it('releases held locks, quits its subscriber and refuses new work on close()', async () => {
    const closing = new DistributedLock(redis.client());
    const blocker = await locks.acquire('blocked');
    const waiting = closing.acquire('blocked', { waitMs: 300 }).catch(() => undefined);
    const held = await closing.acquire('held-at-close');
    await waiting;
    await blocker.release();
    await closing.close();
    expect(await redis.client().exists('lock:{held-at-close}')).toBe(0);
    expect(await held.release()).toBe(false);
    const clients = await redis.client().client('LIST');
    expect(String(clients)).not.toMatch(/sub=1/);
    await expect(closing.acquire('after-close')).rejects.toBeInstanceOf(LockUnavailableError);
  });
});
