import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';
import { QUEUE_ENTRY_LUA } from './queue-entry';

// A chain's first try at a single key outside fair mode. Uncontended, acquire + release is two
// round trips, and on that path every extra argument or a table reply costs measurable
// microseconds in Redis and in the driver: the free case is SET NX plus the fence INCRBY (and
// TIME + SET to start a counter that does not exist) and an integer reply. A held lock queues the caller (when it will wait) exactly as the acquire script
// does, so the next release hands the lock straight to it.
const SOURCE = `
-- KEYS: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: token, ttl ms, stay queued for ms (0: do not queue)
-- Reply: the new fence (1 or more) when taken; else -1 minus the holder's remaining ttl in ms
--        (0 when the holder's key has no expiry)
${NEXT_FENCE_LUA}
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return nextFence(KEYS[2], 1)
end
local queueFor = tonumber(ARGV[3])
if queueFor > 0 then
  local time = redis.call('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local entry = ARGV[1] .. ':' .. ARGV[2]${QUEUE_ENTRY_LUA}
end
return -1 - math.max(redis.call('PTTL', KEYS[1]), -1)
`;

/** The fence when taken; else -1 - holder's ttl ms (so 0 means "held, no expiry"). */
export const firstTryScript = new LuaScript<number>('first-try', SOURCE);

/** The holder's remaining ttl in ms (-1: unknown) encoded in a first-try refusal. */
export function holderTtlOf(refusal: number): number {
  return -1 - refusal;
}
