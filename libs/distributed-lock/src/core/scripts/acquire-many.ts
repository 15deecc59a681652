import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';

// All keys or none, in one step. The new fence is one above the highest of the keys' counters
// and is written to every counter, so it is a valid (monotonic) fence for each key (keys of one
// slot share a counter, which then appears more than once). A missing counter counts as the
// server's clock in microseconds, as in next-fence.
// Its waiters do not queue, so a refused caller that will wait sets the watch marker of each key
// that blocks it: the release of such a key then announces itself (release-unqueued publishes
// only when a marker or a queue asks for it). Waiters retry every 200 ms at most, refreshing it.
const SOURCE = `
-- KEYS: per key, its lock, its fence counter and its watch marker (lock1, fence1, watch1, ...)
-- ARGV: token, ttl ms, watch for ms (0: the caller will not wait)
${NEXT_FENCE_LUA}
local token, ttl, watchFor = ARGV[1], ARGV[2], tonumber(ARGV[3])
local blockedFor = -1
for i = 1, #KEYS, 3 do
  local holder = redis.call('GET', KEYS[i])
  if holder and holder ~= token then
    blockedFor = math.max(blockedFor, redis.call('PTTL', KEYS[i]), 0)
    if watchFor > 0 then redis.call('SET', KEYS[i + 2], '1', 'PX', watchFor) end
  end
end
if blockedFor >= 0 then return {0, blockedFor} end
local fence = 0
for i = 2, #KEYS, 3 do
  local counter = redis.call('GET', KEYS[i])
  if counter then fence = math.max(fence, tonumber(counter)) else fence = math.max(fence, clockFence() - 1) end
end
fence = fence + 1
local text = fenceText(fence)
for i = 1, #KEYS, 3 do
  redis.call('SET', KEYS[i], token, 'PX', ttl)
  redis.call('SET', KEYS[i + 1], text)
end
return {1, fence, tonumber(ttl)}
`;

export type AcquireManyReply = [1, number, number] | [0, number];

export const acquireManyScript = new LuaScript<AcquireManyReply>('acquire-many', SOURCE);
