import { RedisFixture } from '../../../test/redis-fixture';
import { acquireManyScript } from './acquire-many';
import { acquireScript } from './acquire';
import { raiseFenceScript } from './raise-fence';
import { GRANTED_BLOCK } from './queue';
import { releaseScript } from './release';
import { reserveFenceScript } from './reserve-fence';

// Fence counters against a real Redis: a missing counter starts from the server clock (above any
// fence handed out before), counters never expire, and large fences travel as digits.
describe('fence counters', () => {
  let redis: RedisFixture;
  let n = 0;
  const namesOf = (tag: string) => {
    const lock = `lock:{${tag}}`;
    return {
      lock,
      fence: `${lock}#fence`,
      queue: `${lock}#queue`,
      waiters: `${lock}#waiters`,
      channel: `${lock}#wake`,
    };
  };
  let k: ReturnType<typeof namesOf>;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    k = namesOf(`nf${++n}`);
  });
  afterAll(() => redis.stop());

  const acquire = async (token: string) => {
    const fence = await acquireScript.run(redis.client(), [k.lock, k.fence, k.queue, k.waiters], [token, 5000, 0]);
    expect(fence).toBeGreaterThan(0);
    await redis.client().del(k.lock);
    return fence as number;
  };
  const serverMicros = async () => {
    const [s, us] = await redis.client().time();
    return Number(s) * 1_000_000 + Number(us);
  };

  it('starts a missing counter from the server clock in µs, without an expiry, and continues from it', async () => {
    const before = await serverMicros();
    const first = await acquire('a');
    expect(first).toBeGreaterThanOrEqual(before);
    expect(first).toBeLessThanOrEqual(await serverMicros());
    expect(await redis.client().get(k.fence)).toBe(String(first));
    expect(await redis.client().pttl(k.fence)).toBe(-1);
    expect(await acquire('b')).toBe(first + 1);
    expect(await redis.client().pttl(k.fence)).toBe(-1);
  });

  it('restarts a counter that was lost above every fence handed out before', async () => {
    const fences = [await acquire('a'), await acquire('b'), await acquire('c')];
    await redis.client().del(k.fence);
    const after = await acquire('d');
    expect(after).toBeGreaterThan(Math.max(...fences));
  });

  it('reserves a block above every earlier fence when the counter is missing', async () => {
    const earlier = await acquire('a');
    await redis.client().del(k.fence);
    await redis.client().set(k.lock, 'holder', 'PX', 5000);
    const last = await reserveFenceScript.run(
      redis.client(),
      [k.lock, k.fence, k.queue, k.waiters],
      ['holder', 5000, 0, 8],
    );
    expect(last - 8 + 1).toBeGreaterThan(earlier);
  });

  it('hands a large fence to a queued waiter as digits', async () => {
    const first = await acquire('a');
    await redis.client().set(k.lock, 'holder', 'PX', 5000);
    await redis.client().rpush(k.queue, 'next:5000');
    await redis.client().zadd(k.waiters, Date.now() + 60_000, 'next:5000');
    const subscriber = redis.client();
    await subscriber.subscribe(k.channel);
    const message = new Promise<string>((resolve) =>
      subscriber.on('message', (_channel, text: string) => resolve(text)),
    );
    expect(await releaseScript.run(redis.client(), [k.lock, k.fence, k.queue, k.waiters], ['holder'])).toBe(1);
    expect(await message).toBe(`g next ${first + 1} ${GRANTED_BLOCK} 0`);
  });

  it('gives a multi-key lock a fence above every counter it touches, a missing one counting as the clock, and writes it to each', async () => {
    const a = k;
    const aFence = await acquire('a');
    const b = namesOf(`nf${++n}`);
    const before = await serverMicros();
    const reply = await acquireManyScript.run(redis.client(), [a.lock, a.fence, b.lock, b.fence], ['many', 5000]);
    expect(reply[0]).toBe(1);
    const fence = reply[1];
    expect(fence).toBeGreaterThan(Math.max(aFence, before));
    expect(await redis.client().get(a.fence)).toBe(String(fence));
    expect(await redis.client().get(b.fence)).toBe(String(fence));
    expect(await redis.client().pttl(b.fence)).toBe(-1);
  });

  it('gives a multi-key lock whose keys share one counter the next fence of that counter', async () => {
    const shared = `shared-counter-${++n}`;
    const a = namesOf(`nf${++n}`);
    const b = namesOf(`nf${++n}`);
    await redis.client().set(shared, '1800000000000000');
    const reply = await acquireManyScript.run(redis.client(), [a.lock, shared, b.lock, shared], ['many', 5000]);
    expect(reply).toEqual([1, 1_800_000_000_000_001, 5000]);
    expect(await redis.client().get(shared)).toBe('1800000000000001');
  });

  it('raises a counter, never lowers it', async () => {
    await raiseFenceScript.run(redis.client(), [k.fence], [1_800_000_000_000_000]);
    expect(await redis.client().get(k.fence)).toBe('1800000000000000');
    expect(await redis.client().pttl(k.fence)).toBe(-1);
    await raiseFenceScript.run(redis.client(), [k.fence], [5]);
    expect(await acquire('a')).toBe(1_800_000_000_000_001);
  });
});
