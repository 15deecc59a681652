import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';
import { QUEUE_ENTRY_LUA } from './queue-entry';

// A chain's first try at a single key outside fair mode. Uncontended, acquire + release is two
// round trips, and on that path every extra key, argument or a table reply costs measurable
// microseconds in Redis and in the driver: the free case is SET NX plus the fence INCR (and
// TIME + SET to start a counter that does not exist) and an integer reply.
//
// Two variants. The queuing one, for a caller that will wait: a held lock queues the caller
// exactly as the acquire script does, so the next release hands the lock straight to it. The
// plain one names only the lock and the fence counter, for a caller that will not wait.
// Tried and not kept: the plain one for every fresh key, and the queuing one only for keys refused
// lately. It saved ~1% of an uncontended acquire+release, but a waiter of another process then
// joined the queue one round trip late, often after the holder's process had checked the queue at
// the end of its turn of local handoffs, and waited a turn more (the cross-process turn spec failed
// 4 runs in 10 under load, against 0 in 10 with the queuing first try).
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
-- Reply: as the plain first try's (a refusal has queued the caller when ARGV[3] > 0)
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
