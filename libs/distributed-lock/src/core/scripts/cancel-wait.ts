import { LuaScript } from '../lua-script';

// A waiter giving up leaves the queue; if a release handed it the lock just before, it says
// so, and the caller keeps (or releases) the lock instead of leaking it until the ttl runs out.
const SOURCE = `
-- KEYS: lock, fence counter, waiter queue (list), waiter deadlines (zset)
-- ARGV: token, ttl ms (together they form the queue entry)
local entry = ARGV[1] .. ':' .. ARGV[2]
redis.call('LREM', KEYS[3], 1, entry)
redis.call('ZREM', KEYS[4], entry)
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return {1, tonumber(redis.call('GET', KEYS[2]) or '0'), redis.call('PTTL', KEYS[1])}
end
return {0}
`;

export type CancelWaitReply = [1, number, number] | [0];

export const cancelWaitScript = new LuaScript<CancelWaitReply>('cancel-wait', SOURCE);
