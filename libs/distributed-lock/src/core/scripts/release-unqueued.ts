import { LuaScript } from '../lua-script';

// The release of a single key nobody queues for, in the cheapest step: compare, delete, announce.
// It declares only the lock and its queue; when the queue exists it changes nothing and says so,
// and the caller releases with the release script, which hands the lock to the oldest waiter.
// Uncontended that saves two keys and the queue housekeeping on every release; contended across
// processes it costs one more round trip per release from Redis (rare: a process's own next chain
// takes over through the hand-over script instead).
const SOURCE = `
-- KEYS: lock, waiter queue (list)
-- ARGV: token, pub/sub channel of the key
-- Reply: 1 released, 0 not ours (nothing done), 2 waiters are queued (nothing done)
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 2 end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], 'f')
return 1
`;

export const RELEASED = 1;
export const WAITERS_QUEUED = 2;

export const releaseUnqueuedScript = new LuaScript<0 | 1 | 2>('release-unqueued', SOURCE);
