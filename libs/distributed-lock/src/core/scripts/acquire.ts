import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';

// Takes a free lock (fair: only when no live waiter is ahead of us) with the next fence in the
// same step; a lock a release already handed to our token counts as ours. Refused, a waiter joins
// the queue, so the next release hands the lock straight to the oldest one (one already queued only
// has its deadline moved). Uncontended: three arguments, two inner calls (SET NX, INCR), one integer
// back; every argument and table reply costs the driver and Redis a little on every acquire.
const SOURCE = `
-- KEYS: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: token, ttl ms, stay queued for ms (0: do not queue), fair (1 or absent), may already be queued (1 or absent)
${NEXT_FENCE_LUA}
local token, ttl, fair = ARGV[1], ARGV[2], ARGV[4] == '1'
if ARGV[5] ~= '1' and (not fair or redis.call('EXISTS', KEYS[3]) == 0) then
  if redis.call('SET', KEYS[1], token, 'NX', 'PX', ttl) then
    return nextFence(KEYS[2], 1)
  end
end
local entry = token .. ':' .. ttl
local holder = redis.call('GET', KEYS[1])
if holder == token then
  return {tonumber(redis.call('GET', KEYS[2]) or '0'), redis.call('PTTL', KEYS[1])}
end
if not holder and redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('SET', KEYS[1], token, 'PX', ttl)
  return nextFence(KEYS[2], 1)
end
local time = redis.call('TIME')
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if not holder then
  local silent = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', nowMs)
  for _, e in ipairs(silent) do redis.call('LREM', KEYS[3], 1, e) end
  if #silent > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', nowMs) end
  local head = redis.call('LINDEX', KEYS[3], 0)
  if not fair or not head or head == entry then
    redis.call('SET', KEYS[1], token, 'PX', ttl)
    if head then
      redis.call('LREM', KEYS[3], 1, entry)
      redis.call('ZREM', KEYS[4], entry)
    end
    return nextFence(KEYS[2], 1)
  end
end
local queueFor = tonumber(ARGV[3])
if queueFor > 0 then
  if redis.call('ZADD', KEYS[4], nowMs + queueFor, entry) == 1 then redis.call('RPUSH', KEYS[3], entry) end
  redis.call('PEXPIRE', KEYS[3], 60000)
  redis.call('PEXPIRE', KEYS[4], 60000)
end
return -1 - math.max(redis.call('PTTL', KEYS[1]), -1)
`;

/** The fence (taken, the whole ttl ahead), [fence, remaining ttl ms] (already ours: handed over), or -1 - the holder's ttl ms (refused). */
export type AcquireReply = number | [number, number];

export const acquireScript = new LuaScript<AcquireReply>('acquire', SOURCE);
