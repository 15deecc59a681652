import { RedisFixture } from '../../../test/redis-fixture';
import { LockNaming } from '../lock-names';
import { now } from '../timing';
import { SingleRedisBackend } from './single-redis.backend';

// The first try's two variants against a real Redis: a caller that will wait is queued when
// refused, one that will not takes the plain step.
describe('SingleRedisBackend.firstTry and release', () => {
  let redis: RedisFixture;
  let backend: SingleRedisBackend;
  let n = 0;
  let key: string;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    backend = new SingleRedisBackend(redis.client(), new LockNaming('lock:', true), { driftFactor: 0.01 });
    key = `ft${++n}`;
  });
  afterAll(() => redis.stop());

  const tryFirst = (token: string, queueForMs: number) => backend.firstTry(key, token, 5000, queueForMs, now());

  it('takes a free key with a fence and a validity counted from when it was sent', async () => {
    const sentAt = now();
    const result = await backend.firstTry(key, 'a', 5000, 1000, sentAt);
    expect(result).toEqual({ acquired: true, fence: expect.any(Number), validUntil: sentAt + 5000 - 52 });
    expect(await redis.client().get(`lock:{${key}}`)).toBe('a');
  });

  it('queues a refused caller that will wait, in the same step, under the names LockNaming gives', async () => {
    await redis.client().set(`lock:{${key}}`, 'holder', 'PX', 3000);
    expect(await tryFirst('w1', 1000)).toMatchObject({ acquired: false });
    const names = new LockNaming('lock:', true).namesOf(key);
    expect(await redis.client().lrange(names.queue, 0, -1)).toEqual(['w1:5000']);
    expect(await redis.client().zrange(names.waiters, 0, -1)).toEqual(['w1:5000']);
  });

  it('does not queue a refused caller that will not wait (tryAcquire)', async () => {
    await redis.client().set(`lock:{${key}}`, 'holder', 'PX', 3000);
    const refused = await tryFirst('t1', 0);
    expect(refused).toMatchObject({ acquired: false });
    expect(refused.acquired === false && refused.holderTtlMs).toBeGreaterThan(2000);
    expect(await redis.client().exists(`lock:{${key}}#queue`, `lock:{${key}}#waiters`)).toBe(0);
  });

  it('releases a lock nobody waits for; leaves one with queued waiters to the hand-over', async () => {
    const names = new LockNaming('lock:', true).namesOf(key);
    expect(await tryFirst('a', 1000)).toMatchObject({ acquired: true });
    expect(await backend.release({ keys: [key], token: 'a' })).toBe(true);
    expect(await redis.client().exists(names.lock)).toBe(0);

    expect(await tryFirst('b', 1000)).toMatchObject({ acquired: true });
    expect(await tryFirst('w', 1000)).toMatchObject({ acquired: false });
    expect(await backend.release({ keys: [key], token: 'b' })).toBe(true);
    expect(await redis.client().get(names.lock)).toBe('w');
    expect(await redis.client().llen(names.queue)).toBe(0);
  });
});
