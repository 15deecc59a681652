import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';
import { QUEUE_ENTRY_LUA } from './queue-entry';

// A chain's first try at a single key outside fair mode. Uncontended, acquire + release is two
// round trips, and on that path every extra key, argument or a table reply costs measurable
// microseconds in Redis and in the driver: the free case is SET NX plus the fence INCR (and
// TIME + SET to start a counter that does not exist) and an integer reply.
//
// Two variants. The plain one names only the lock and the fence counter: a fresh key (an order
// id) is nearly always free, and the two queue keys and the queue window cost it ~1% of an
// acquire+release (paired slices as in bench (a), 40 rounds, 3 runs). A refused caller queues with the
// acquire script, one round trip later. The queuing one is for keys refused lately (see
// RecentContention): a held lock queues the caller (when it will wait) exactly as the acquire
// script does, so the next release hands the lock straight to it, in the same round trip.
const TAKE_LUA = `
${NEXT_FENCE_LUA}
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return nextFence(KEYS[2], 1)
end`;

const REFUSE_LUA = `
return -1 - math.max(redis.call('PTTL', KEYS[1]), -1)`;

const PLAIN_SOURCE = `
-- KEYS: lock, fence counter
-- ARGV: token, ttl ms
-- Reply: the new fence (1 or more) when taken; else -1 minus the holder's remaining ttl in ms
--        (0 when the holder's key has no expiry)
${TAKE_LUA}${REFUSE_LUA}
`;

const QUEUING_SOURCE = `
-- KEYS: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: token, ttl ms, stay queued for ms (0: do not queue)
-- Reply: as the plain first try's
${TAKE_LUA}
local queueFor = tonumber(ARGV[3])
if queueFor > 0 then
  local time = redis.call('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local entry = ARGV[1] .. ':' .. ARGV[2]${QUEUE_ENTRY_LUA}
end${REFUSE_LUA}
`;

/** The fence when taken; else -1 - holder's ttl ms (so 0 means "held, no expiry"). Never queues. */
export const firstTryScript = new LuaScript<number>('first-try', PLAIN_SOURCE);

/** As `firstTryScript`, and a refused caller that will wait is queued for the handoff. */
export const firstTryOrQueueScript = new LuaScript<number>('first-try-or-queue', QUEUING_SOURCE);

/** The holder's remaining ttl in ms (-1: unknown) encoded in a first-try refusal. */
export function holderTtlOf(refusal: number): number {
  return -1 - refusal;
}
