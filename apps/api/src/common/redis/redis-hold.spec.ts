import { REDIS_DOWN_HOLD_MS, RedisHold } from './redis-hold';

/** An error as ioredis reports a server it cannot reach. */
const unreachableRedis = (): Error =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
/** An error reply of a reachable Redis: a bug of ours, never "Redis is down". */
const redisBug = (): Error =>
  Object.assign(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'), { name: 'ReplyError' });

const logger = () => {
  const warnings: string[] = [];
  return { warnings, log: { warn: (m: string) => warnings.push(m) } };
};

describe('RedisHold: skipping work while Redis is unreachable', () => {
  it('skip returns for an unreachable Redis, warning at most once per 10 s per task', () => {
    const { warnings, log } = logger();
    const hold = new RedisHold();
    hold.skip(unreachableRedis(), { log, what: 'spec-skip' });
    hold.skip(unreachableRedis(), { log, what: 'spec-skip' });
    expect(warnings).toEqual(['spec-skip skipped: redis unavailable']);
  });

  it('skip throws any other failure as it is', () => {
    const bug = redisBug();
    expect(() => new RedisHold().skip(bug, { ...logger(), what: 'spec-throw' })).toThrow(bug);
  });

  it('fallback: the value, the fallback for an unreachable Redis, any other failure rejected', async () => {
    const skipped = new RedisHold().fallback({ ...logger(), what: 'spec-async' }, 'none');
    await expect(Promise.resolve(3).catch(skipped)).resolves.toBe(3);
    await expect(Promise.reject(unreachableRedis()).catch(skipped)).resolves.toBe('none');
    const bug = new Error('ERR wrong kind');
    await expect(Promise.reject(bug).catch(skipped)).rejects.toBe(bug);
  });
});

describe('RedisHold: the hold after Redis was found unreachable', () => {
  const log = { warn: () => undefined };

  it('holds skippable work off Redis for REDIS_DOWN_HOLD_MS after an unreachable Redis, then asks again', () => {
    const hold = new RedisHold();
    const now = Date.now();
    expect(hold.recentlyDown(now)).toBe(false);
    hold.skip(unreachableRedis(), { log, what: 'x' });
    expect(hold.recentlyDown(now)).toBe(true);
    expect(hold.recentlyDown(now + REDIS_DOWN_HOLD_MS + 5)).toBe(false);
  });

  it('is not set by a failure that is not an unreachable Redis', () => {
    const hold = new RedisHold();
    expect(() => hold.skip(new Error('ERR wrong kind'), { log, what: 'x' })).toThrow('ERR wrong kind');
    expect(hold.recentlyDown()).toBe(false);
  });

  it('is one per owner: a hold noted by one instance is not seen by another', () => {
    const [noted, other] = [new RedisHold(), new RedisHold()];
    noted.noteDown();
    expect(noted.recentlyDown()).toBe(true);
    expect(other.recentlyDown()).toBe(false);
  });
});
