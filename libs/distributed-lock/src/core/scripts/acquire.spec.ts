import { RedisFixture } from '../../../test/redis-fixture';
import { acquireScript, type AcquireReply } from './acquire';

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
    acquireScript.run(redis.client(), keys, [
      token,
      5000,
      opts.queueFor ?? 0,
      opts.fair ? 1 : 0,
      opts.mayBeQueued ? 1 : 0,
    ]);

  // Replies: the fence when taken, [fence, remaining ttl] when already ours, -1 - holder's ttl when refused.
  const taken = (reply: AcquireReply) => typeof reply !== 'number' || reply > 0;

  it('takes a free lock on a first try and hands out increasing fences', async () => {
    const first = await run('a');
    expect(first).toBeGreaterThan(0);
    await redis.client().del(keys[0]);
    expect(await run('b')).toBe((first as number) + 1);
    expect(await redis.client().get(keys[0])).toBe('b');
  });

  it("answers a refusal with the holder's remaining ttl", async () => {
    await redis.client().set(keys[0], 'holder', 'PX', 5000);
    const refused = (await run('c')) as number;
    expect(-1 - refused).toBeGreaterThan(4000);
    expect(-1 - refused).toBeLessThanOrEqual(5000);
  });

  it('answers a lock handed to the token with the fence and the lease it has left', async () => {
    await redis.client().set(keys[0], 'heir', 'PX', 3000);
    await redis.client().set(keys[1], '41');
    const [fence, leftMs] = (await run('heir', { queueFor: QUEUE_FOR, mayBeQueued: true })) as [number, number];
    expect(fence).toBe(41);
    expect(leftMs).toBeGreaterThan(2000);
    expect(leftMs).toBeLessThanOrEqual(3000);
  });

  it('a token that may be queued takes the free lock and leaves the queue', async () => {
    await redis.client().set(keys[0], 'holder', 'PX', 5000);
    expect(taken(await run('w', { queueFor: QUEUE_FOR }))).toBe(false);
    expect(await redis.client().lrange(keys[2], 0, -1)).toEqual(['w:5000']);
    await redis.client().del(keys[0]);
    expect(taken(await run('w', { queueFor: QUEUE_FOR, mayBeQueued: true }))).toBe(true);
    expect(await redis.client().llen(keys[2])).toBe(0);
    expect(await redis.client().zcard(keys[3])).toBe(0);
  });

  it('in fair mode a first try does not pass a live waiter queued ahead', async () => {
    await redis.client().set(keys[0], 'holder', 'PX', 5000);
    await run('early', { fair: true, queueFor: QUEUE_FOR });
    await redis.client().del(keys[0]);
    expect(taken(await run('late', { fair: true, queueFor: QUEUE_FOR }))).toBe(false);
    expect(await redis.client().lrange(keys[2], 0, -1)).toEqual(['early:5000', 'late:5000']);
    expect(taken(await run('early', { fair: true, queueFor: QUEUE_FOR, mayBeQueued: true }))).toBe(true);
  });

  it('outside fair mode a first try may take a free lock while others are queued, leaving their entries', async () => {
    await redis.client().set(keys[0], 'holder', 'PX', 5000);
    await run('waiting', { queueFor: QUEUE_FOR });
    await redis.client().del(keys[0]);
    expect(taken(await run('newcomer'))).toBe(true);
    expect(await redis.client().lrange(keys[2], 0, -1)).toEqual(['waiting:5000']);
  });
});
