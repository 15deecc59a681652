// A Lua fragment shared by the scripts that hand out fences. It defines `nextFence(counter, by)`,
// which takes `by` numbers from a key's fence counter and returns the last of them;
// `clockFence()`, where a counter that does not exist starts; and `fenceText(fence)`, which
// writes a fence as digits (Lua's own number-to-string conversion gives "1.7e+15" for large
// ones). SET_FENCE_LUA adds `setFence(counter, text)` for the scripts that write a counter.
//
// A counter that does not exist (a new key, one whose counter expired, or one lost with Redis'
// data) starts from the server's clock in microseconds rather than from 1: a counter gains at
// most one number per microsecond (a script takes longer than that), so a restart from the clock
// is above every fence the key ever had, unless the server's clock stepped back further than the
// time since. That is what lets a counter expire (FENCE_RETENTION_MS after it started): a lock on
// a key used once, such as an order id, no longer leaves a key in Redis for ever, and a counter
// Redis lost no longer restarts below the fences the storage has seen.
export const FENCE_RETENTION_MS = 3_600_000;

export const NEXT_FENCE_LUA = `
local function fenceText(fence) return string.format('%d', fence) end
local function clockFence()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local function nextFence(counter, by)
  local fence = redis.call('INCRBY', counter, by)
  if fence ~= by then return fence end
  fence = clockFence() + by - 1
  redis.call('SET', counter, fenceText(fence), 'PX', ${FENCE_RETENTION_MS})
  return fence
end
`;

// Writes a counter: one that exists keeps its expiry, a new one gets the retention.
export const SET_FENCE_LUA = `
local function setFence(counter, text)
  if not redis.call('SET', counter, text, 'XX', 'KEEPTTL') then
    redis.call('SET', counter, text, 'PX', ${FENCE_RETENTION_MS})
  end
end
`;
