import { RedisFixture, until } from '../../../test/redis-fixture';
import { handOverScript } from './hand-over';

// The end of a turn: the lock goes to a waiter of another process when one is queued (ours then
// queues behind it), else stays with the process's next chain, with a new block of fences.
describe('hand-over script', () => {
  let redis: RedisFixture;
  let n = 0;
  let lock: string;
  let keys: string[];
  const fence = 'lock:#fence';

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(async () => {
    lock = `lock:{h${++n}}`;
    keys = [lock, fence, `${lock}#queue`, `${lock}#waiters`];
    await redis.client().set(fence, '100');
    await redis.client().set(lock, 'mine', 'PX', 5000);
  });
  afterAll(() => redis.stop());

  const endTurn = () => handOverScript.run(redis.client(), keys, ['mine', 'next', 5000, 0, 2000, 16]);

  it('grants a queued waiter of another process, and counts our next chain queued behind it', async () => {
    const heard: string[] = [];
    const subscriber = redis.client();
    await subscriber.subscribe(`${lock}#wake`);
    subscriber.on('message', (_channel: string, message: string) => heard.push(message));
    await redis.client().rpush(keys[2], 'theirs:5000');
    await redis.client().zadd(keys[3], Date.now() + 60_000, 'theirs:5000');
    expect(await endTurn()).toEqual([2]);
    expect(await redis.client().get(lock)).toBe('theirs');
    expect(await redis.client().lrange(keys[2], 0, -1)).toEqual(['next:5000']);
    await until(() => heard.length > 0);
    expect(heard).toEqual(['g theirs 101 16 1']);
  });

  it('with nobody else queued, gives the lock to our next chain with its fence and a new block', async () => {
    expect(await endTurn()).toEqual([1, 101]);
    expect(await redis.client().get(lock)).toBe('next');
    expect(await redis.client().get(fence)).toBe('117');
  });

  it('changes nothing when the lock is no longer ours', async () => {
    await redis.client().set(lock, 'someone', 'PX', 5000);
    expect(await endTurn()).toEqual([0]);
    expect(await redis.client().get(lock)).toBe('someone');
  });
});
