import { parsePolls, pollLua, PollReply } from './poll';
import { QueueScript } from './script';

/**
 * Takes a ticket, or finds the one the user already has, and answers its status as POLL would, in
 * the same round trip.
 * KEYS: meta, users, the product's sold-out flag, ranks, admitted, bought, buying. ARGV: userId,
 * now (ms), saleStartsAt (ms, -1: none), a candidate epoch.
 * The first join at or after the start freezes the pre-queue's size (`pre`): tickets up to it are
 * shuffled at the start, later ones keep their arrival order. The queue's epoch is set by its first
 * join: a queue lost with its Redis starts again under another, and its old tickets are known as such.
 * Returns {number, 1, epoch, poll...} for a new ticket, {number, 0, epoch, poll...} for the user's
 * existing one, {0, 0, epoch} when sold out.
 */
export const JOIN: QueueScript = {
  name: 'waitingRoomJoin',
  keys: 7,
  lua: `
local epoch = redis.call('HGET', KEYS[1], 'epoch')
if not epoch then
  epoch = ARGV[4]
  redis.call('HSET', KEYS[1], 'epoch', epoch)
end
local created = 0
local n = redis.call('HGET', KEYS[2], ARGV[1])
if n then n = tonumber(n) else
  if redis.call('HGET', KEYS[1], 'soldOut') == '1' or redis.call('EXISTS', KEYS[3]) == 1 then return {0, 0, epoch} end
  local starts = tonumber(ARGV[3])
  if (starts < 0 or tonumber(ARGV[2]) >= starts) and redis.call('HEXISTS', KEYS[1], 'pre') == 0 then
    redis.call('HSET', KEYS[1], 'pre', redis.call('HGET', KEYS[1], 'seq') or '0')
  end
  n = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  redis.call('HSET', KEYS[2], ARGV[1], n)
  created = 1
end
local tickets = {n}` +
    pollLua({ meta: 'KEYS[1]', ranks: 'KEYS[4]', admitted: 'KEYS[5]', bought: 'KEYS[6]', soldOutFlag: 'KEYS[3]', buying: 'KEYS[7]' }, 'tickets') +
    `
local answer = {n, created, epoch}
for i = 1, #out do answer[#answer + 1] = out[i] end
return answer`,
};

export type JoinReply = { number: number; created: boolean; epoch: string; status: PollReply } | 'sold-out';

export function parseJoin(reply: unknown): JoinReply {
  const [number, created, epoch, ...poll] = reply as [number, number, string, ...Array<number | string>];
  if (Number(number) === 0) return 'sold-out';
  return { number: Number(number), created: Number(created) === 1, epoch: String(epoch), status: parsePolls(poll)[0] };
}
