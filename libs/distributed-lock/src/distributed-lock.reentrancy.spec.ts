import { AsyncLocalStorage } from 'node:async_hooks';
import { RedisFixture, sleep } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';
import { LockTimeoutError } from './errors';
import type { Lock } from './lock';

describe('DistributedLock: re-entry within one async call chain', () => {
  let redis: RedisFixture;
  let locks: DistributedLock;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    locks = new DistributedLock(redis.client(), { defaultWaitMs: 300 });
  });
  afterEach(() => locks.close());
  afterAll(() => redis.stop());

  it('re-enters a key held by the same chain with the same token and fence; the last exit releases', async () => {
    const reentrant: boolean[] = [];
    locks.on('acquired', (e: { reentrant: boolean }) => reentrant.push(e.reentrant));
    await locks.using('nested', {}, async (_s, outer) => {
      await locks.using('nested', {}, async (_s2, inner) => {
        expect(inner.token).toBe(outer.token);
        expect(inner.fence).toBe(outer.fence);
        const viaAcquire = await locks.acquire('nested');
        expect(viaAcquire.fence).toBe(outer.fence);
        expect(await viaAcquire.release()).toBe(true);
      });
      expect(await redis.client().get('lock:{nested}')).toBe(outer.token);
    });
    expect(await redis.client().exists('lock:{nested}')).toBe(0);
    expect(reentrant).toEqual([false, true, true]);
  });

  it('does not let a parallel chain of the same process share the lock', async () => {
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const chainA = locks.using('parallel', {}, async () => {
      await holding;
    });
    await sleep(50);
    const chainB = (async () => locks.tryAcquire('parallel'))();
    expect(await chainB).toBeNull();
    release();
    await chainA;
  });

  it('tells the work which lock it runs under through current()', async () => {
    expect(locks.current()).toBeUndefined();
    await locks.using('outer', {}, async (_s, outer) => {
      expect(locks.current()).toBe(outer);
      await locks.using(['x', 'y'], {}, async (_s2, inner) => {
        expect(locks.current()).toBe(inner);
        expect(locks.current('outer')).toBe(outer);
        expect(locks.current('y')).toBe(inner);
        await Promise.resolve().then(() => expect(locks.current()?.fence).toBe(inner.fence));
      });
      expect(locks.current()).toBe(outer);
    });
    expect(locks.current('outer')).toBeUndefined();
  });

  it('passes the lock and its signal to the work', async () => {
    let seen: Lock | undefined;
    const result = await locks.using('args', {}, async (signal, lock) => {
      seen = lock;
      expect(signal).toBe(lock.signal);
      expect(signal.aborted).toBe(false);
      return 42;
    });
    expect(result).toBe(42);
    expect(seen?.key).toBe('args');
  });

  it('with reentrant: false records nothing in the chain: no re-entry, no current(), no AsyncLocalStorage scope', async () => {
    const enterScope = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    try {
      await locks.using('plain', { reentrant: false }, async (_s, lock) => {
        expect(locks.current('plain')).toBeUndefined();
        await expect(locks.acquire('plain', { waitMs: 50 })).rejects.toBeInstanceOf(LockTimeoutError);
        expect(await redis.client().get('lock:{plain}')).toBe(lock.token);
      });
      expect(enterScope).not.toHaveBeenCalled();
    } finally {
      enterScope.mockRestore();
    }
    expect(await redis.client().exists('lock:{plain}')).toBe(0);
  });

  it('with reentrant: false does not re-enter a lock the chain holds', async () => {
    await locks.using('held', {}, async (_s, outer) => {
      await expect(locks.acquire('held', { waitMs: 50, reentrant: false })).rejects.toBeInstanceOf(LockTimeoutError);
      expect(await redis.client().get('lock:{held}')).toBe(outer.token);
    });
    expect(await redis.client().exists('lock:{held}')).toBe(0);
  });
});
