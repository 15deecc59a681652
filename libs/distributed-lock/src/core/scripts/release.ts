import { CHANNEL_SUFFIX } from '../lock-names';
import { LuaScript } from '../lua-script';
import { QUEUE_LUA } from './queue';

// Compare-and-release. When a waiter is queued, the lock is handed to it directly (see grantNext),
// so no second round trip and no race with the releaser re-acquiring; otherwise the lock is
// deleted and "free" is published (for multi-key and Redlock waiters, which do not queue).
const SOURCE = `
-- KEYS: per key, 4 names: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: token
${QUEUE_LUA}
local owned = 0
for i = 1, #KEYS, 4 do
  local lock, counter, queue, waiters = KEYS[i], KEYS[i + 1], KEYS[i + 2], KEYS[i + 3]
  if redis.call('GET', lock) == ARGV[1] then
    owned = owned + 1
    if redis.call('EXISTS', queue) == 0 or not grantNext(lock, counter, queue, waiters, 0) then
      redis.call('DEL', lock)
      redis.call('PUBLISH', lock .. '${CHANNEL_SUFFIX}', 'f')
    end
  end
end
return owned
`;

/** How many of the keys were still held by the token (and are now released or handed over). */
export const releaseScript = new LuaScript<number>('release', SOURCE);
