import { QueueScript } from './script';

/**
 * Takes a ticket, or finds the one the user already has.
 * KEYS: meta, users, the product's sold-out flag. ARGV: userId, now (ms), saleStartsAt (ms, -1: none),
 * a fresh random epoch.
 * The first join at or after the start freezes the pre-queue's size (`pre`): tickets up to it are
 * shuffled at the start, later ones keep their arrival order. The queue's epoch is set by its first
 * join: a queue lost with its Redis starts again under another, and its old tickets are known as such.
 * Returns {number, 1, epoch} for a new ticket, {number, 0, epoch} for the user's existing one,
 * {0, 0, epoch} when sold out.
 */
export const JOIN: QueueScript = {
  name: 'waitingRoomJoin',
  keys: 3,
  lua: `
local epoch = redis.call('HGET', KEYS[1], 'epoch')
if not epoch then
  epoch = ARGV[4]
  redis.call('HSET', KEYS[1], 'epoch', epoch)
end
local n = redis.call('HGET', KEYS[2], ARGV[1])
if n then return {tonumber(n), 0, epoch} end
if redis.call('HGET', KEYS[1], 'soldOut') == '1' or redis.call('EXISTS', KEYS[3]) == 1 then return {0, 0, epoch} end
local starts = tonumber(ARGV[3])
if (starts < 0 or tonumber(ARGV[2]) >= starts) and redis.call('HEXISTS', KEYS[1], 'pre') == 0 then
  redis.call('HSET', KEYS[1], 'pre', redis.call('HGET', KEYS[1], 'seq') or '0')
end
n = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[2], ARGV[1], n)
return {n, 1, epoch}`,
};

export type JoinReply = { number: number; created: boolean; epoch: string } | 'sold-out';

export function parseJoin(reply: unknown): JoinReply {
  const [number, created, epoch] = reply as [number, number, string];
  return Number(number) === 0 ? 'sold-out' : { number: Number(number), created: Number(created) === 1, epoch: String(epoch) };
}
