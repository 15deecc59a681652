import type Redis from 'ioredis';
import { RedisFixture, sleep, until } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';
import { LockLostError, LockTimeoutError } from './errors';
import type { LockEventMap } from './lock';

describe('DistributedLock: a lost lease is reported; renewal, attempts and drift', () => {
  let redis: RedisFixture;
  let client: Redis;
  let locks: DistributedLock;
  let lost: Array<LockEventMap['lost']>;

  beforeAll(async () => {
    redis = await RedisFixture.start();
    client = redis.client();
  });
  beforeEach(() => {
    locks = new DistributedLock(redis.client(), { defaultWaitMs: 2000 });
    lost = [];
    locks.on('lost', (e) => lost.push(e));
  });
  afterEach(() => locks.close());
  afterAll(() => redis.stop());

  it('aborts the signal and emits lost when the key is overwritten, and the same instance locks again', async () => {
    let fence = 0;
    const outcome = locks.using('overwritten', { ttlMs: 600 }, async (signal, lock) => {
      fence = lock.fence;
      await client.set('lock:{overwritten}', 'intruder', 'PX', 60_000);
      await until(() => signal.aborted);
      expect(signal.reason).toBeInstanceOf(LockLostError);
      return 'finished';
    });
    await expect(outcome).rejects.toBeInstanceOf(LockLostError);
    expect(lost).toEqual([expect.objectContaining({ key: 'overwritten' })]);
    expect(await client.get('lock:{overwritten}')).toBe('intruder');
    await client.del('lock:{overwritten}');
    const again = await locks.acquire('overwritten');
    expect(again.fence).toBeGreaterThan(fence);
    expect(again.signal.aborted).toBe(false);
    expect(await again.release()).toBe(true);
  });

  it('aborts the signal and emits lost when the key expired under a renewing holder', async () => {
    const outcome = locks.using('expired', { ttlMs: 600 }, async (signal) => {
      await client.del('lock:{expired}');
      await until(() => signal.aborted);
    });
    await expect(outcome).rejects.toBeInstanceOf(LockLostError);
    expect(lost).toEqual([expect.objectContaining({ key: 'expired' })]);
    const again = await locks.acquire('expired');
    expect(await again.release()).toBe(true);
  });

  it('declares an unrenewed lease lost when its validity runs out, and its late release touches nothing', async () => {
    const first = await locks.acquire('ran-out', { ttlMs: 300 });
    await until(() => first.signal.aborted);
    expect(lost).toEqual([expect.objectContaining({ key: 'ran-out' })]);
    const second = await locks.acquire('ran-out');
    expect(await first.release()).toBe(false);
    expect(await client.get('lock:{ran-out}')).toBe(second.token);
    expect(await second.release()).toBe(true);
  });

  it('stops renewing at release', async () => {
    let extensions = 0;
    locks.on('extended', () => (extensions += 1));
    let held: { extend(): Promise<boolean> } | undefined;
    // 900 ms: a starved CI process must not lose the lease before the two renewals come.
    await locks.using('renewed', { ttlMs: 900 }, async (_signal, lock) => {
      held = lock;
      await until(() => extensions >= 2);
    });
    const atRelease = extensions;
    expect(await client.exists('lock:{renewed}')).toBe(0);
    await sleep(400); // longer than a renewal period (ttl / 3 = 300 ms)
    expect(extensions).toBe(atRelease);
    expect(await client.exists('lock:{renewed}')).toBe(0);
    expect(await held?.extend()).toBe(false);
  });

  it('limits a tryAcquire to one attempt and an acquire to its waitMs, leaving no queue entry', async () => {
    const holder = new DistributedLock(redis.client());
    const held = await holder.acquire('limited', { ttlMs: 60_000 });
    const clientOfLocks = redis.client();
    const limited = new DistributedLock(clientOfLocks);
    const sent = jest.spyOn(clientOfLocks, 'evalsha');
    try {
      expect(await limited.tryAcquire('limited')).toBeNull();
      expect(sent).toHaveBeenCalledTimes(1);
      const timeouts: unknown[] = [];
      limited.on('timeout', (e) => timeouts.push(e));
      const error = await limited.acquire('limited', { waitMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockTimeoutError);
      expect(error).toMatchObject({ key: 'limited', waitMs: 300 });
      expect(timeouts).toEqual([expect.objectContaining({ key: 'limited' })]);
      expect(await client.exists('lock:{limited}#queue')).toBe(0);
      expect(await held.release()).toBe(true);
      expect(await client.exists('lock:{limited}')).toBe(0);
    } finally {
      await Promise.all([limited.close(), holder.close()]);
    }
  });

  it('deducts the clock-drift allowance from the validity, and never grants a lease it eats whole', async () => {
    const drifting = new DistributedLock(redis.client(), { driftFactor: 0.1 });
    try {
      const lock = await drifting.acquire('drift', { ttlMs: 1000 });
      expect(lock.validUntil - lock.acquiredAt).toBeLessThanOrEqual(1000 - 102);
      expect(lock.validUntil).toBeGreaterThan(lock.acquiredAt);
      await lock.release();
      // A 1 ms lease minus the 2 ms floor of the allowance: no validity left, so never held.
      await expect(drifting.acquire('drift', { ttlMs: 1, waitMs: 200 })).rejects.toBeInstanceOf(LockTimeoutError);
      expect(await drifting.tryAcquire('drift', { ttlMs: 1 })).toBeNull();
      expect(await client.exists('lock:{drift}')).toBe(0);
    } finally {
      await drifting.close();
    }
  });
});
