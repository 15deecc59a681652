import { CHANNEL_SUFFIX } from '../lock-names';
import { NEXT_FENCE_LUA } from './next-fence';

/** Fences a waiter is granted beyond its own, for the chains of its process that wait behind it; the most any block holds. */
export const GRANTED_BLOCK = 16;

// A Lua fragment for the scripts that keep a key's waiter queue: entries `token:ttl` in arrival
// order (a list), and scored by the time after which a waiter that stopped refreshing its entry
// (a crashed process, a wait that ended) is skipped (a zset). `grantNext` hands the lock to the
// oldest live waiter, who holds it when the message arrives, with no round trip: its token and
// ttl, a fence and GRANTED_BLOCK more for its process's line, announced as `g <token> <fence>
// <block> <still queued>`. A waiter that never claims it only costs the lock its ttl.
export const QUEUE_LUA = `
${NEXT_FENCE_LUA}
local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local function dropSilent(queue, waiters, at)
  local silent = redis.call('ZRANGEBYSCORE', waiters, '-inf', at)
  for _, e in ipairs(silent) do redis.call('LREM', queue, 1, e) end
  if #silent > 0 then redis.call('ZREMRANGEBYSCORE', waiters, '-inf', at) end
end
local function enqueue(queue, waiters, entry, untilMs)
  if redis.call('ZADD', waiters, untilMs, entry) == 1 then redis.call('RPUSH', queue, entry) end
  redis.call('PEXPIRE', queue, 60000)
  redis.call('PEXPIRE', waiters, 60000)
end
local function grantNext(lock, counter, queue, waiters, alsoQueued)
  dropSilent(queue, waiters, nowMs())
  local entry = redis.call('LPOP', queue)
  if not entry then return false end
  redis.call('ZREM', waiters, entry)
  local token, ttl = string.match(entry, '^(.*):(%d+)$')
  redis.call('SET', lock, token, 'PX', ttl)
  local last = nextFence(counter, ${GRANTED_BLOCK} + 1)
  local message = token .. ' ' .. fenceText(last - ${GRANTED_BLOCK}) .. ' ${GRANTED_BLOCK} ' .. (redis.call('LLEN', queue) + alsoQueued)
  redis.call('PUBLISH', lock .. '${CHANNEL_SUFFIX}', 'g ' .. message)
  return true
end
`;
