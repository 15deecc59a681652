import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';

// All keys or none, in one step. The new fence is one above the highest of the keys' counters
// and is written to every counter, so it is a valid (monotonic) fence for each key (keys of one
// slot share a counter, which then appears more than once). A missing counter counts as the
// server's clock in microseconds, as in next-fence.
// Its waiters do not queue: every release announces itself ("f"), and they retry on that.
const SOURCE = `
-- KEYS: per key, its lock and its fence counter (lock1, fence1, lock2, fence2, ...)
-- ARGV: token, ttl ms
${NEXT_FENCE_LUA}
local token, ttl = ARGV[1], ARGV[2]
local blockedFor = -1
for i = 1, #KEYS, 2 do
  local holder = redis.call('GET', KEYS[i])
  if holder and holder ~= token then blockedFor = math.max(blockedFor, redis.call('PTTL', KEYS[i]), 0) end
end
if blockedFor >= 0 then return {0, blockedFor} end
local fence = 0
for i = 2, #KEYS, 2 do
  local counter = redis.call('GET', KEYS[i])
  if counter then fence = math.max(fence, tonumber(counter)) else fence = math.max(fence, clockFence() - 1) end
end
fence = fence + 1
local text = fenceText(fence)
for i = 1, #KEYS, 2 do
  redis.call('SET', KEYS[i], token, 'PX', ttl)
  redis.call('SET', KEYS[i + 1], text)
end
return {1, fence, tonumber(ttl)}
`;

export type AcquireManyReply = [1, number, number] | [0, number];

export const acquireManyScript = new LuaScript<AcquireManyReply>('acquire-many', SOURCE);
