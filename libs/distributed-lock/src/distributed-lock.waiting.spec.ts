import { RedisFixture, sleep } from '../test/redis-fixture';
import { spawnWorker } from '../test/spawn-worker';
import { DistributedLock } from './distributed-lock';

jest.setTimeout(60_000);

describe('DistributedLock: waiting, handoff and fair mode', () => {
  let redis: RedisFixture;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  afterAll(() => redis.stop());

  it('hands a released lock to a waiter rather than back to the releaser', async () => {
    const locks = new DistributedLock(redis.client(), { defaultWaitMs: 10_000 });
    const order: string[] = [];
    const worker = async (name: string): Promise<void> => {
      for (let i = 0; i < 5; i++) {
        await locks.using('handoff', {}, async () => {
          order.push(name);
          await sleep(2);
        });
      }
    };
    await Promise.all([worker('a'), worker('b'), worker('c')]);
    const repeats = order.filter((name, i) => i > 0 && order[i - 1] === name).length;
    expect(repeats).toBeLessThanOrEqual(2);
    await locks.close();
  });

  it('a release with a waiter of another instance queued hands the lock to that waiter', async () => {
    const [a, b] = [new DistributedLock(redis.client()), new DistributedLock(redis.client())];
    const held = await a.acquire('queued-elsewhere');
    // Less than the 5 s lease: only a release that really gives the lock up lets the waiter in.
    const waiting = b.acquire('queued-elsewhere', { waitMs: 2000 });
    while ((await redis.client().llen('lock:{queued-elsewhere}#queue')) === 0) await sleep(5);
    expect(await held.release()).toBe(true);
    const next = await waiting;
    expect(next.fence).toBeGreaterThan(held.fence);
    expect(await redis.client().get('lock:{queued-elsewhere}')).toBe(next.token);
    expect(await redis.client().llen('lock:{queued-elsewhere}#queue')).toBe(0);
    await next.release();
    await Promise.all([a.close(), b.close()]);
  });

  it('still acquires by polling when its subscriber is gone (lost release messages)', async () => {
    const deafSubscriber = redis.client({ retryStrategy: () => null, lazyConnect: true });
    deafSubscriber.disconnect();
    const holder = new DistributedLock(redis.client());
    const waiter = new DistributedLock(redis.client(), { subscriber: deafSubscriber });
    const held = await holder.acquire('deaf', { ttlMs: 30_000 });
    setTimeout(() => void held.release(), 300);
    const lock = await waiter.acquire('deaf', { waitMs: 5000 });
    expect(lock.fence).toBeGreaterThan(held.fence);
    await lock.release();
    await Promise.all([holder.close(), waiter.close()]);
  });

  it('serves fair waiters in arrival order, across instances', async () => {
    const holderLocks = new DistributedLock(redis.client());
    const held = await holderLocks.acquire('fifo');
    const instances = Array.from({ length: 4 }, () => new DistributedLock(redis.client(), { defaultWaitMs: 20_000 }));
    const order: number[] = [];
    const waiters: Array<Promise<void>> = [];
    for (let i = 0; i < 8; i++) {
      waiters.push(
        instances[i % 4].using('fifo', { fair: true }, async () => {
          order.push(i);
          await sleep(5);
        }),
      );
      while ((await redis.client().llen('lock:{fifo}#queue')) < i + 1) await sleep(5);
    }
    await held.release();
    await Promise.all(waiters);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await Promise.all([holderLocks.close(), ...instances.map((l) => l.close())]);
  });

  it('does not let a dead waiter hold up the queue', async () => {
    const locks = new DistributedLock(redis.client());
    const held = await locks.acquire('dead-waiter', { ttlMs: 30_000 });
    const doomed = spawnWorker(['take', redis.server.port, 'dead-waiter', 60_000, 0]);
    while ((await redis.client().llen('lock:{dead-waiter}#queue')) === 0) await sleep(20);
    doomed.kill('SIGKILL');
    await doomed.exited;
    const others = new DistributedLock(redis.client());
    const next = others.acquire('dead-waiter', { waitMs: 15_000, fair: true });
    await sleep(2000); // the dead waiter's queue entry is not refreshed and goes stale
    await held.release();
    const started = performance.now();
    const lock = await next;
    expect(performance.now() - started).toBeLessThan(1500);
    await lock.release();
    await Promise.all([locks.close(), others.close()]);
  });
});
