import { LockUnavailableError } from '@app/distributed-lock';
import {
  fallbackWhenRedisDown,
  forgetRedisDown,
  isRedisUnavailable,
  REDIS_DOWN_HOLD_MS,
  redisRecentlyDown,
  skipWhenRedisDown,
} from './dependency-errors';

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

describe('the dependency-failure policy for Redis', () => {
  it('calls unreachable only what the lock library lists as such', () => {
    expect(isRedisUnavailable(unreachableRedis())).toBe(true);
    expect(isRedisUnavailable(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisUnavailable(new LockUnavailableError('stock:1', 'no quorum'))).toBe(true);
    expect(isRedisUnavailable(redisBug())).toBe(false);
    expect(isRedisUnavailable(new Error('ERR wrong kind'))).toBe(false);
    expect(isRedisUnavailable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
  });

  it('skipWhenRedisDown returns for an unreachable Redis, warning at most once per 10 s per task', () => {
    const { warnings, log } = logger();
    skipWhenRedisDown(unreachableRedis(), { log, what: 'spec-skip' });
    skipWhenRedisDown(unreachableRedis(), { log, what: 'spec-skip' });
    expect(warnings).toEqual(['spec-skip skipped: redis unavailable']);
  });

  it('skipWhenRedisDown throws any other failure as it is', () => {
    const bug = redisBug();
    expect(() => skipWhenRedisDown(bug, { ...logger(), what: 'spec-throw' })).toThrow(bug);
  });

  it('fallbackWhenRedisDown: the value, the fallback for an unreachable Redis, any other failure rejected', async () => {
    const context = { ...logger(), what: 'spec-async' };
    const skipped = fallbackWhenRedisDown(context, 'none');
    await expect(Promise.resolve(3).catch(skipped)).resolves.toBe(3);
    await expect(Promise.reject(unreachableRedis()).catch(skipped)).resolves.toBe('none');
    const bug = new Error('ERR wrong kind');
    await expect(Promise.reject(bug).catch(skipped)).rejects.toBe(bug);
  });
});

describe('the hold after Redis was found unreachable', () => {
  const log = { warn: () => undefined };
  beforeEach(() => forgetRedisDown());

  it('holds skippable work off Redis for REDIS_DOWN_HOLD_MS after an unreachable Redis, then asks again', () => {
    const now = Date.now();
    expect(redisRecentlyDown(now)).toBe(false);
    skipWhenRedisDown(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), { log, what: 'x' });
    expect(redisRecentlyDown(now)).toBe(true);
    expect(redisRecentlyDown(now + REDIS_DOWN_HOLD_MS + 5)).toBe(false);
  });

  it('is not set by a failure that is not an unreachable Redis', () => {
    expect(() => skipWhenRedisDown(new Error('ERR wrong kind'), { log, what: 'x' })).toThrow('ERR wrong kind');
    expect(redisRecentlyDown()).toBe(false);
  });
});
