import { RedisFixture } from '../../../test/redis-fixture';
import { LockNaming } from '../lock-names';
import { now } from '../timing';
import type { AttemptRequest } from './lock-backend';
import { SingleRedisBackend } from './single-redis.backend';

// A chain's first attempt against a real Redis: a caller that will wait is queued when refused,
// one that will not (tryAcquire) is not; a release hands the lock to a queued waiter.
describe('SingleRedisBackend.attempt and release', () => {
  let redis: RedisFixture;
  let backend: SingleRedisBackend;
  let n = 0;
  let key: string;
  const names = (k: string) => new LockNaming('lock:', true).namesOf(k);

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    backend = new SingleRedisBackend(redis.client(), new LockNaming('lock:', true), { driftFactor: 0.01 });
    key = `ft${++n}`;
  });
  afterAll(() => redis.stop());

  const first = (token: string, queueForMs: number): AttemptRequest => ({
    keys: [key],
    token,
    ttlMs: 5000,
    fair: false,
    queueForMs,
    mayBeQueued: false,
  });

  it('takes a free key with a fence and a validity counted from when it was sent', async () => {
    const sentAt = now();
    const result = await backend.attempt(first('a', 1000));
    expect(result).toEqual({ acquired: true, fence: expect.any(Number), validUntil: expect.any(Number) });
    expect(result.acquired && result.validUntil).toBeLessThanOrEqual(now() + 5000 - 52);
    expect(result.acquired && result.validUntil).toBeGreaterThanOrEqual(sentAt + 5000 - 52);
    expect(await redis.client().get(`lock:{${key}}`)).toBe('a');
  });

  it('queues a refused caller that will wait, in the same step, under the names LockNaming gives', async () => {
    await redis.client().set(`lock:{${key}}`, 'holder', 'PX', 3000);
    expect(await backend.attempt(first('w1', 1000))).toMatchObject({ acquired: false });
    expect(await redis.client().lrange(names(key).queue, 0, -1)).toEqual(['w1:5000']);
    expect(await redis.client().zrange(names(key).waiters, 0, '-1')).toEqual(['w1:5000']);
  });

  it('does not queue a refused caller that will not wait (tryAcquire)', async () => {
    await redis.client().set(`lock:{${key}}`, 'holder', 'PX', 3000);
    const refused = await backend.attempt(first('t1', 0));
    expect(refused).toMatchObject({ acquired: false });
    expect(refused.acquired === false && refused.holderTtlMs).toBeGreaterThan(2000);
    expect(await redis.client().exists(`lock:{${key}}#queue`, `lock:{${key}}#waiters`)).toBe(0);
  });

  it('releases a lock nobody waits for; hands one with a queued waiter to it', async () => {
    expect(await backend.attempt(first('a', 1000))).toMatchObject({ acquired: true });
    expect(await backend.release({ keys: [key], token: 'a' })).toBe(true);
    expect(await redis.client().exists(names(key).lock)).toBe(0);

    expect(await backend.attempt(first('b', 1000))).toMatchObject({ acquired: true });
    expect(await backend.attempt(first('w', 1000))).toMatchObject({ acquired: false });
    expect(await backend.release({ keys: [key], token: 'b' })).toBe(true);
    expect(await redis.client().get(names(key).lock)).toBe('w');
    expect(await redis.client().llen(names(key).queue)).toBe(0);
  });

  it('never releases a lock that another token holds', async () => {
    expect(await backend.attempt(first('owner', 0))).toMatchObject({ acquired: true });
    expect(await backend.release({ keys: [key], token: 'stale' })).toBe(false);
    expect(await redis.client().get(names(key).lock)).toBe('owner');
  });
});
