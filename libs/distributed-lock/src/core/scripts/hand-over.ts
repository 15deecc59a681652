import { LuaScript } from '../lua-script';
import { QUEUE_LUA } from './queue';

// A releasing holder passes the lock straight to the next waiter of its own process: one round
// trip, new token, new ttl, a new fence and `block` more for the chains after it, no pub/sub.
// Unless told it may keep the lock local, it first serves a live waiter of another process (as
// the release script would) and queues its own next waiter at the tail, so processes take turns.
const SOURCE = `
-- KEYS: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: our token, next local token, its ttl ms, keep local (1/0), its queue window ms, block
${QUEUE_LUA}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
if ARGV[4] ~= '1' and redis.call('EXISTS', KEYS[3]) == 1 and grantNext(KEYS[1], KEYS[2], KEYS[3], KEYS[4], 1) then
  enqueue(KEYS[3], KEYS[4], ARGV[2] .. ':' .. ARGV[3], nowMs() + tonumber(ARGV[5]))
  return {2}
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
local block = tonumber(ARGV[6])
return {1, nextFence(KEYS[2], block + 1) - block}
`;

/** [1, fence]: the local waiter holds it (the block follows the fence); [2]: another process's waiter does (ours is queued); [0]: not ours. */
export type HandOverReply = [1, number] | [2] | [0];

export const handOverScript = new LuaScript<HandOverReply>('hand-over', SOURCE);
