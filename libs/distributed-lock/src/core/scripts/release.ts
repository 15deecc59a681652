import { CHANNEL_SUFFIX } from '../lock-names';
import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';

// Compare-and-release. When a waiter is queued, the lock is handed to it directly (new token,
// new fence, its own ttl) and the handoff is published, so no second round trip and no race
// with the releaser re-acquiring; otherwise the lock is deleted and "free" is published (for
// multi-key and Redlock waiters, which do not queue). Without a queue, no housekeeping at all.
const SOURCE = `
-- KEYS: per key, 4 names: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: token (a key's channel is not a key: it is named here, as LockNaming names it)
${NEXT_FENCE_LUA}
local token = ARGV[1]
local owned = 0
for i = 0, #KEYS / 4 - 1 do
  local lock, fence, queue, waiters = KEYS[i * 4 + 1], KEYS[i * 4 + 2], KEYS[i * 4 + 3], KEYS[i * 4 + 4]
  local channel = lock .. '${CHANNEL_SUFFIX}'
  if redis.call('GET', lock) == token then
    owned = owned + 1
    local nextEntry = false
    if redis.call('EXISTS', queue) == 1 then
      local time = redis.call('TIME')
      local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
      local silent = redis.call('ZRANGEBYSCORE', waiters, '-inf', nowMs)
      for _, e in ipairs(silent) do redis.call('LREM', queue, 1, e) end
      if #silent > 0 then redis.call('ZREMRANGEBYSCORE', waiters, '-inf', nowMs) end
      nextEntry = redis.call('LPOP', queue)
    end
    if nextEntry then
      redis.call('ZREM', waiters, nextEntry)
      local nextToken, nextTtl = string.match(nextEntry, '^(.*):(%d+)$')
      redis.call('SET', lock, nextToken, 'PX', nextTtl)
      redis.call('PUBLISH', channel, 'g ' .. nextToken .. ' ' .. fenceText(nextFence(fence, 1)))
    else
      redis.call('DEL', lock)
      redis.call('PUBLISH', channel, 'f')
    end
  end
end
return owned
`;

/** How many of the keys were still held by the token (and are now released or handed over). */
export const releaseScript = new LuaScript<number>('release', SOURCE);
