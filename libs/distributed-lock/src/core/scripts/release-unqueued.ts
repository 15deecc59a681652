import { CHANNEL_SUFFIX } from '../lock-names';
import { LuaScript } from '../lua-script';

// The release of a single key nobody queues for, in the cheapest step: compare, delete, and
// announce only when a waiter that does not queue (a multi-key lock) has asked for it by setting
// the key's watch marker. When the queue exists it changes nothing and says so, and the caller
// releases with the release script, which hands the lock to the oldest waiter.
// Uncontended that saves two keys, the queue housekeeping and the PUBLISH (a PUBLISH costs even
// when nobody is subscribed: without it, a bare call of our two scripts took 0.960-1.003x the time
// per acquire+release in three paired runs as in bench (a)). Contended across
// processes it costs one more round trip per release from Redis (rare: a process's own next chain
// takes over through the hand-over script instead).
const SOURCE = `
-- KEYS: lock, waiter queue (list), watch marker (set while an unqueued waiter waits)
-- ARGV: token
-- The key's pub/sub channel is not a key: it is named here, as LockNaming names it (CHANNEL_SUFFIX)
-- Reply: 1 released, 0 not ours (nothing done), 2 waiters are queued (nothing done)
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[2], KEYS[3]) == 0 then
  redis.call('DEL', KEYS[1])
  return 1
end
if redis.call('EXISTS', KEYS[2]) == 1 then return 2 end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', KEYS[1] .. '${CHANNEL_SUFFIX}', 'f')
return 1
`;

export const RELEASED = 1;
export const WAITERS_QUEUED = 2;

export const releaseUnqueuedScript = new LuaScript<0 | 1 | 2>('release-unqueued', SOURCE);
