// A Lua fragment for the scripts that hand out fences: `nextFence(counter, by)` takes `by` numbers
// from the counter (shared and never expiring: see LockNaming) and returns the last of them, by
// INCR when `by` is 1 (INCRBY with a Lua number costs a number-to-string conversion per acquire);
// `fenceText(fence)` writes a fence as digits (Lua's own conversion gives "1.7e+15").
//
// A missing counter (a new deployment, or one Redis lost with its data) starts from the server's
// clock in microseconds: counters gain less than one number per microsecond on average, so that
// is above every fence handed out before, unless the clock stepped back further than the time
// since; advanceFence stays the backstop.
export const NEXT_FENCE_LUA = `
local function fenceText(fence) return string.format('%d', fence) end
local function clockFence()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local function nextFence(counter, by)
  local fence
  if by == 1 then fence = redis.call('INCR', counter) else fence = redis.call('INCRBY', counter, by) end
  if fence ~= by then return fence end
  fence = clockFence() + by - 1
  redis.call('SET', counter, fenceText(fence))
  return fence
end
`;
