import { RedisFixture, sleep, until } from '../../../test/redis-fixture';
import { acquireScript } from './acquire';
import { acquireManyScript } from './acquire-many';
import { firstTryOrQueueScript, firstTryScript, holderTtlOf } from './first-try';
import { RELEASED, releaseUnqueuedScript, WAITERS_QUEUED } from './release-unqueued';

// The two cheap steps of the uncontended path against a real Redis: they must agree with the
// full scripts on fences and must never delete a lock that is not theirs or that waiters queue for.
describe('first-try and release-unqueued scripts', () => {
  let redis: RedisFixture;
  let n = 0;
  let lock: string;
  let fence: string;
  let queue: string;
  let waiters: string;
  let watch: string;
  let channel: string;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    lock = `lock:{u${++n}}`;
    [fence, queue, waiters, watch, channel] = [`${lock}#fence`, `${lock}#queue`, `${lock}#waiters`, `${lock}#watch`, `${lock}#wake`];
  });
  afterAll(() => redis.stop());

  const take = (token: string) => firstTryScript.run(redis.client(), [lock, fence], [token, 5000]);
  const takeOrQueue = (token: string, queueFor: number) => firstTryOrQueueScript.run(redis.client(), [lock, fence, queue, waiters], [token, 5000, queueFor]);
  const release = (token: string) => releaseUnqueuedScript.run(redis.client(), [lock, queue, watch], [token]);
  const listen = async (): Promise<string[]> => {
    const heard: string[] = [];
    const subscriber = redis.client();
    await subscriber.subscribe(channel);
    subscriber.on('message', (_channel: string, message: string) => heard.push(message));
    return heard;
  };

  it('takes a free lock with the next fence of the same counter the acquire script uses', async () => {
    const first = await take('a');
    expect(first).toBeGreaterThan(0);
    expect(await redis.client().get(lock)).toBe('a');
    expect(await redis.client().pttl(lock)).toBeGreaterThan(4000);
    await redis.client().del(lock);
    const viaAcquire = await acquireScript.run(redis.client(), [lock, fence, queue, waiters], ['b', 5000, 0, 0, 0]);
    expect(viaAcquire).toEqual([1, first + 1, 5000]);
    await redis.client().del(lock);
    expect(await take('c')).toBe(first + 2);
  });

  it('refuses a held lock, leaves it and the fence alone, and reports the holder ttl', async () => {
    await redis.client().set(lock, 'holder', 'PX', 3000);
    const refusal = await take('x');
    expect(refusal).toBeLessThan(0);
    expect(holderTtlOf(refusal)).toBeGreaterThan(2000);
    expect(holderTtlOf(refusal)).toBeLessThanOrEqual(3000);
    expect(await redis.client().get(lock)).toBe('holder');
    expect(await redis.client().exists(fence)).toBe(0);
    expect(await redis.client().llen(queue)).toBe(0);
  });

  it('takes a free lock in the queuing variant too, with the next fence of the same counter', async () => {
    const first = await take('a');
    await redis.client().del(lock);
    expect(await takeOrQueue('b', 2000)).toBe(first + 1);
    expect(await redis.client().get(lock)).toBe('b');
    expect(await redis.client().exists(queue)).toBe(0);
  });

  it('in the queuing variant, queues a caller that will wait, once, where the acquire script and the release find it', async () => {
    await redis.client().set(lock, 'holder', 'PX', 3000);
    expect(await takeOrQueue('w', 2000)).toBeLessThan(0);
    expect(holderTtlOf(await takeOrQueue('w', 2000))).toBeGreaterThan(2000);
    expect(await redis.client().lrange(queue, 0, -1)).toEqual(['w:5000']);
    expect(await redis.client().zcard(waiters)).toBe(1);
    await redis.client().del(lock);
    const viaAcquire = await acquireScript.run(redis.client(), [lock, fence, queue, waiters], ['w', 5000, 0, 2000, 1]);
    expect(viaAcquire[0]).toBe(1);
    expect(await redis.client().llen(queue)).toBe(0);
  });

  it('in the queuing variant, does not queue a caller that will not wait', async () => {
    await redis.client().set(lock, 'holder', 'PX', 3000);
    expect(await takeOrQueue('x', 0)).toBeLessThan(0);
    expect(await redis.client().exists(queue, waiters)).toBe(0);
  });

  it('reads a holder without expiry as an unknown ttl, never as a fence', async () => {
    await redis.client().set(lock, 'forever');
    const refusal = await take('x');
    expect(refusal).toBe(0);
    expect(holderTtlOf(refusal)).toBe(-1);
  });

  it('releases its own lock without announcing it when nobody watches', async () => {
    const heard = await listen();
    await take('mine');
    expect(await release('mine')).toBe(RELEASED);
    expect(await redis.client().exists(lock)).toBe(0);
    await sleep(50);
    expect(heard).toEqual([]);
  });

  it('announces the release to a waiter that does not queue, once the multi-key acquire it tried set the watch marker', async () => {
    const heard = await listen();
    await take('mine');
    const other = `lock:{u${++n}}`;
    const refused = await acquireManyScript.run(redis.client(), [lock, fence, watch, other, fence, `${other}#watch`], ['many', 5000, 1000]);
    expect(refused[0]).toBe(0);
    expect(await redis.client().pttl(watch)).toBeGreaterThan(500);
    expect(await redis.client().exists(`${other}#watch`)).toBe(0); // only the keys that blocked it
    expect(await release('mine')).toBe(RELEASED);
    expect(await redis.client().exists(lock)).toBe(0);
    await until(() => heard.length > 0);
    expect(heard).toEqual(['f']);
  });

  it('sets no watch marker for a multi-key caller that will not wait', async () => {
    await take('mine');
    const refused = await acquireManyScript.run(redis.client(), [lock, fence, watch], ['many', 5000, 0]);
    expect(refused[0]).toBe(0);
    expect(await redis.client().exists(watch)).toBe(0);
  });

  it('never deletes a lock that another token holds', async () => {
    await take('owner');
    expect(await release('stale')).toBe(0);
    expect(await redis.client().get(lock)).toBe('owner');
  });

  it('changes nothing when waiters are queued, so the full release can hand the lock over', async () => {
    await take('owner');
    await redis.client().rpush(queue, 'waiter:5000');
    expect(await release('owner')).toBe(WAITERS_QUEUED);
    expect(await redis.client().get(lock)).toBe('owner');
    expect(await redis.client().lrange(queue, 0, -1)).toEqual(['waiter:5000']);
  });
});
