import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';

// While a holder works, reserves a block of fences for the next holders of its process (who will
// inherit the holder's token) and makes sure the lease lasts the next holder's ttl (never
// shortening it). With the check on, it reserves nothing if a live waiter of another process is
// queued.
const SOURCE = `
-- KEYS: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: token, next holder's ttl ms, check for other processes' waiters (1/0), fences wanted
${NEXT_FENCE_LUA}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[3]) == 1 then
  local time = redis.call('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if redis.call('ZCOUNT', KEYS[4], '(' .. nowMs, '+inf') > 0 then return -2 end
end
local ttl = tonumber(ARGV[2])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return nextFence(KEYS[2], tonumber(ARGV[4]))
`;

/** The last fence of the block; -1: the lock is not held by the token; -2: another process waits. */
export const reserveFenceScript = new LuaScript<number>('reserve-fence', SOURCE);
