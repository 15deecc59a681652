import { LockUnavailableError } from '@app/distributed-lock';
import { isRedisUnavailable } from './dependency-errors';

/** An error as ioredis reports a server it cannot reach. */
const unreachableRedis = (): Error =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
/** An error reply of a reachable Redis: a bug of ours, never "Redis is down". */
const redisBug = (): Error =>
  Object.assign(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'), { name: 'ReplyError' });

describe('the dependency-failure policy for Redis', () => {
  it('calls unreachable only what the lock library lists as such', () => {
    expect(isRedisUnavailable(unreachableRedis())).toBe(true);
    expect(isRedisUnavailable(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisUnavailable(new LockUnavailableError('stock:1', 'no quorum'))).toBe(true);
    expect(isRedisUnavailable(redisBug())).toBe(false);
    expect(isRedisUnavailable(new Error('ERR wrong kind'))).toBe(false);
    expect(isRedisUnavailable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
  });
});
