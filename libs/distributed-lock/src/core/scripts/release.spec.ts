import { RedisFixture, until } from '../../../test/redis-fixture';
import { acquireManyScript } from './acquire-many';
import { releaseScript } from './release';

// The release announces every release nobody is queued for, so waiters that do not queue
// (multi-key, Redlock) hear it; with a queue, it hands the lock to the oldest live waiter.
describe('release script', () => {
  let redis: RedisFixture;
  let n = 0;
  let lock: string;
  let keys: string[];
  let channel: string;
  const fence = 'lock:#fence';

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    lock = `lock:{r${++n}}`;
    keys = [lock, fence, `${lock}#queue`, `${lock}#waiters`];
    channel = `${lock}#wake`;
  });
  afterAll(() => redis.stop());

  const listen = async (): Promise<string[]> => {
    const heard: string[] = [];
    const subscriber = redis.client();
    await subscriber.subscribe(channel);
    subscriber.on('message', (_channel: string, message: string) => heard.push(message));
    return heard;
  };

  it('announces the release to a multi-key waiter it refused', async () => {
    const heard = await listen();
    await redis.client().set(lock, 'mine', 'PX', 5000);
    const refused = await acquireManyScript.run(redis.client(), [lock, fence, 'lock:{other}', fence], ['many', 5000]);
    expect(refused[0]).toBe(0);
    expect(await releaseScript.run(redis.client(), keys, ['mine'])).toBe(1);
    expect(await redis.client().exists(lock)).toBe(0);
    await until(() => heard.length > 0);
    expect(heard).toEqual(['f']);
  });

  it('never deletes a lock that another token holds', async () => {
    await redis.client().set(lock, 'owner', 'PX', 5000);
    expect(await releaseScript.run(redis.client(), keys, ['stale'])).toBe(0);
    expect(await redis.client().get(lock)).toBe('owner');
  });

  it('hands the lock to the queued waiter with the next fence and a block for its line, and says so', async () => {
    const heard = await listen();
    await redis.client().set(fence, '100');
    await redis.client().set(lock, 'owner', 'PX', 5000);
    await redis.client().rpush(`${lock}#queue`, 'waiter:5000', 'later:5000');
    await redis.client().zadd(`${lock}#waiters`, Date.now() + 60_000, 'waiter:5000', Date.now() + 60_000, 'later:5000');
    expect(await releaseScript.run(redis.client(), keys, ['owner'])).toBe(1);
    expect(await redis.client().get(lock)).toBe('waiter');
    await until(() => heard.length > 0);
    expect(heard[0]).toBe('g waiter 101 16 1'); // 1: one waiter still queued
    expect(await redis.client().get(fence)).toBe('117');
    expect(await redis.client().lrange(`${lock}#queue`, 0, -1)).toEqual(['later:5000']);
  });
});
