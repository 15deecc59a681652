import { LuaScript } from '../lua-script';
import { QUEUE_LUA } from './queue';

// Takes a free lock (fair: only when no live waiter is ahead of us) with the next fence in the
// same step; a lock a release already handed to our token counts as ours. Refused, a waiter joins
// the queue, so the next release hands the lock straight to the oldest one (one already queued only
// has its deadline moved). Uncontended: three arguments, two inner calls (SET NX, INCR), one integer
// back; every argument and table reply costs the driver and Redis a little on every acquire.
const SOURCE = `
-- KEYS: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: token, ttl ms, stay queued for ms (0: do not queue), fair (1 or absent), may already be queued (1 or absent)
${QUEUE_LUA}
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
local at = nowMs()
if not holder then
  dropSilent(KEYS[3], KEYS[4], at)
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
if queueFor > 0 then enqueue(KEYS[3], KEYS[4], entry, at + queueFor) end
return -1 - math.max(redis.call('PTTL', KEYS[1]), -1)
`;

/** The fence (taken, the whole ttl ahead), [fence, remaining ttl ms] (already ours: handed over), or -1 - the holder's ttl ms (refused). */
export type AcquireReply = number | [number, number];

export const acquireScript = new LuaScript<AcquireReply>('acquire', SOURCE);
