import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';

// A releasing holder passes the lock straight to the next waiter of its own process: one round
// trip, new token, new ttl and a new fence, no pub/sub. Unless told it may keep the lock local,
// it first serves a live waiter of another process (as the release script would) and queues its
// own next waiter at the tail, so processes take turns.
const SOURCE = `
-- KEYS: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: our token, next local token, its ttl ms, keep local (1/0), its queue window ms, channel
${NEXT_FENCE_LUA}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
local mine = ARGV[2] .. ':' .. ARGV[3]
if ARGV[4] ~= '1' and redis.call('EXISTS', KEYS[3]) == 1 then
  local time = redis.call('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local silent = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', nowMs)
  for _, e in ipairs(silent) do redis.call('LREM', KEYS[3], 1, e) end
  if #silent > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', nowMs) end
  local other = redis.call('LPOP', KEYS[3])
  if other then
    redis.call('ZREM', KEYS[4], other)
    local otherToken, otherTtl = string.match(other, '^(.*):(%d+)$')
    redis.call('SET', KEYS[1], otherToken, 'PX', otherTtl)
    redis.call('PUBLISH', ARGV[6], 'g ' .. otherToken .. ' ' .. fenceText(nextFence(KEYS[2], 1)))
    if redis.call('ZADD', KEYS[4], nowMs + tonumber(ARGV[5]), mine) == 1 then redis.call('RPUSH', KEYS[3], mine) end
    redis.call('PEXPIRE', KEYS[3], 60000)
    redis.call('PEXPIRE', KEYS[4], 60000)
    return {2}
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return {1, nextFence(KEYS[2], 1)}
`;

/** [1, fence]: the local waiter holds it; [2]: another process's waiter does (ours is queued); [0]: not ours. */
export type HandOverReply = [1, number] | [2] | [0];

export const handOverScript = new LuaScript<HandOverReply>('hand-over', SOURCE);
