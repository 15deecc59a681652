import { RedisFixture } from '../../../test/redis-fixture';
import { LockNaming } from '../lock-names';
import { now } from '../timing';
import { SingleRedisBackend } from './single-redis.backend';

// The first try's two variants against a real Redis: a caller that will wait is queued when
// refused, one that will not takes the plain step.
describe('SingleRedisBackend.firstTry', () => {
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

  it('queues a refused caller that will wait, in the same step', async () => {
    await redis.client().set(`lock:{${key}}`, 'holder', 'PX', 3000);
    expect(await tryFirst('w1', 1000)).toMatchObject({ acquired: false });
    expect(await redis.client().lrange(`lock:{${key}}#queue`, 0, -1)).toEqual(['w1:5000']);
  });

  it('does not queue a refused caller that will not wait (tryAcquire)', async () => {
    await redis.client().set(`lock:{${key}}`, 'holder', 'PX', 3000);
    const refused = await tryFirst('t1', 0);
    expect(refused).toMatchObject({ acquired: false });
    expect(refused.acquired === false && refused.holderTtlMs).toBeGreaterThan(2000);
    expect(await redis.client().exists(`lock:{${key}}#queue`, `lock:{${key}}#waiters`)).toBe(0);
  });
});
