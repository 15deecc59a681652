import { QueueScript } from './script';

/**
 * Closes the pre-queue at the start of the sale (when no join has done it yet).
 * KEYS: meta. ARGV: none. Returns {pre, ranked (0/1), bought}.
 */
export const FREEZE: QueueScript = {
  name: 'waitingRoomFreeze',
  keys: 1,
  lua: `
if redis.call('HEXISTS', KEYS[1], 'pre') == 0 then
  redis.call('HSET', KEYS[1], 'pre', redis.call('HGET', KEYS[1], 'seq') or '0')
end
local m = redis.call('HMGET', KEYS[1], 'pre', 'ranked', 'bought')
local ranked = 0
if m[2] == '1' then ranked = 1 end
return {tonumber(m[1]), ranked, tonumber(m[3]) or 0}`,
};

export function parseFreeze(reply: unknown): { pre: number; ranked: boolean; bought: number } {
  const [pre, ranked, bought] = (reply as number[]).map(Number);
  return { pre, ranked: ranked === 1, bought };
}
