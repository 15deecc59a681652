import { RedisFixture } from '../../../test/redis-fixture';
import { acquireScript } from './acquire';

// The acquire script against a real Redis: its uncontended shortcut must never skip the queue
// rules (fair order, and a queued token's own entry being removed when it takes the lock).
describe('acquire script', () => {
  let redis: RedisFixture;
  let n = 0;
  let keys: string[];
  const QUEUE_FOR = 2000;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    const lock = `lock:{s${++n}}`;
    keys = [lock, `${lock}#fence`, `${lock}#queue`, `${lock}#waiters`];
  });
  afterAll(() => redis.stop());

  const run = (token: string, opts: { fair?: boolean; queueFor?: number; mayBeQueued?: boolean } = {}) =>
    acquireScript.run(redis.client(), keys, [token, 5000, opts.fair ? 1 : 0, opts.queueFor ?? 0, opts.mayBeQueued ? 1 : 0]);

  it('takes a free lock on a first try and hands out increasing fences', async () => {
    const first = await run('a');
    expect(first[0]).toBe(1);
    await redis.client().del(keys[0]);
    const second = await run('b');
    expect(second).toEqual([1, (first as [1, number, number])[1] + 1, 5000]);
    expect(await redis.client().get(keys[0])).toBe('b');
  });

  it('a token that may be queued takes the free lock and leaves the queue', async () => {
    await redis.client().set(keys[0], 'holder', 'PX', 5000);
    expect((await run('w', { queueFor: QUEUE_FOR }))[0]).toBe(0);
    expect(await redis.client().lrange(keys[2], 0, -1)).toEqual(['w:5000']);
    await redis.client().del(keys[0]);
    expect((await run('w', { queueFor: QUEUE_FOR, mayBeQueued: true }))[0]).toBe(1);
    expect(await redis.client().llen(keys[2])).toBe(0);
    expect(await redis.client().zcard(keys[3])).toBe(0);
  });

  it('in fair mode a first try does not pass a live waiter queued ahead', async () => {
    await redis.client().set(keys[0], 'holder', 'PX', 5000);
    await run('early', { fair: true, queueFor: QUEUE_FOR });
    await redis.client().del(keys[0]);
    expect((await run('late', { fair: true, queueFor: QUEUE_FOR }))[0]).toBe(0);
    expect(await redis.client().lrange(keys[2], 0, -1)).toEqual(['early:5000', 'late:5000']);
    expect((await run('early', { fair: true, queueFor: QUEUE_FOR, mayBeQueued: true }))[0]).toBe(1);
  });

  it('outside fair mode a first try may take a free lock while others are queued, leaving their entries', async () => {
    await redis.client().set(keys[0], 'holder', 'PX', 5000);
    await run('waiting', { queueFor: QUEUE_FOR });
    await redis.client().del(keys[0]);
    expect((await run('newcomer'))[0]).toBe(1);
    expect(await redis.client().lrange(keys[2], 0, -1)).toEqual(['waiting:5000']);
  });
});
