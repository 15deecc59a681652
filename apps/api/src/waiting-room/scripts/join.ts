import { QueueScript } from './script';

/**
 * Takes a ticket, or finds the one the user already has.
 * KEYS: meta, users, the product's sold-out flag. ARGV: userId, now (ms), saleStartsAt (ms, -1: none).
 * The first join at or after the start freezes the pre-queue's size (`pre`): tickets up to it are
 * shuffled at the start, later ones keep their arrival order.
 * Returns {number, 1} for a new ticket, {number, 0} for the user's existing one, {0, 0} when sold out.
 */
export const JOIN: QueueScript = {
  name: 'waitingRoomJoin',
  keys: 3,
  lua: `
local n = redis.call('HGET', KEYS[2], ARGV[1])
if n then return {tonumber(n), 0} end
if redis.call('HGET', KEYS[1], 'soldOut') == '1' or redis.call('EXISTS', KEYS[3]) == 1 then return {0, 0} end
local starts = tonumber(ARGV[3])
if (starts < 0 or tonumber(ARGV[2]) >= starts) and redis.call('HEXISTS', KEYS[1], 'pre') == 0 then
  redis.call('HSET', KEYS[1], 'pre', redis.call('HGET', KEYS[1], 'seq') or '0')
end
n = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[2], ARGV[1], n)
return {n, 1}`,
};

export type JoinReply = { number: number; created: boolean } | 'sold-out';

export function parseJoin(reply: unknown): JoinReply {
  const [number, created] = (reply as number[]).map(Number);
  return number === 0 ? 'sold-out' : { number, created: created === 1 };
}
