import { parsePolls, pollLua, PollReply } from './poll';
import { QueueScript } from './script';

/**
 * Takes tickets for the joins of one product that arrived together, or finds the ones their users
 * already have, and answers each ticket's status as POLL would, in the same round trip. The joins
 * are taken in the order sent (their arrival order).
 * KEYS: meta, users, the product's sold-out flag, ranks, admitted, bought, buying. ARGV:
 * saleStartsAt (ms, -1: none), a candidate epoch, then per join its userId and now (ms).
 * The first join at or after the start freezes the pre-queue's size (`pre`): tickets up to it are
 * shuffled at the start, later ones keep their arrival order. The queue's epoch is set by its first
 * join: a queue lost with its Redis starts again under another, and its old tickets are known as such.
 * Returns {epoch, then per join: number (0: sold out, no ticket), created (0/1)}, then POLL's
 * answer for the joins that have a ticket, in order.
 */
export const JOIN: QueueScript = {
  name: 'waitingRoomJoins',
  keys: 7,
  lua:
    `
local epoch = redis.call('HGET', KEYS[1], 'epoch')
if not epoch then
  epoch = ARGV[2]
  redis.call('HSET', KEYS[1], 'epoch', epoch)
end
local starts = tonumber(ARGV[1])
local soldOut = redis.call('HGET', KEYS[1], 'soldOut') == '1' or redis.call('EXISTS', KEYS[3]) == 1
local answer = {epoch}
local tickets = {}
for i = 3, #ARGV, 2 do
  local created = 0
  local n = redis.call('HGET', KEYS[2], ARGV[i])
  if n then n = tonumber(n) elseif soldOut then n = 0 else
    if (starts < 0 or tonumber(ARGV[i + 1]) >= starts) and redis.call('HEXISTS', KEYS[1], 'pre') == 0 then
      redis.call('HSET', KEYS[1], 'pre', redis.call('HGET', KEYS[1], 'seq') or '0')
    end
    n = redis.call('HINCRBY', KEYS[1], 'seq', 1)
    redis.call('HSET', KEYS[2], ARGV[i], n)
    created = 1
  end
  answer[#answer + 1] = n
  answer[#answer + 1] = created
  if n > 0 then tickets[#tickets + 1] = n end
end` +
    pollLua(
      {
        meta: 'KEYS[1]',
        ranks: 'KEYS[4]',
        admitted: 'KEYS[5]',
        bought: 'KEYS[6]',
        soldOutFlag: 'KEYS[3]',
        buying: 'KEYS[7]',
      },
      'tickets',
    ) +
    `
for i = 1, #out do answer[#answer + 1] = out[i] end
return answer`,
};

export interface JoinRequest {
  userId: string;
  nowMs: number;
}

export type JoinReply = { number: number; created: boolean; epoch: string; status: PollReply } | 'sold-out';

/** The script's arguments after the keys. */
export const joinArgs = (
  saleStartsAtMs: number | null,
  epochCandidate: string,
  joins: JoinRequest[],
): Array<string | number> => [
  saleStartsAtMs ?? -1,
  epochCandidate,
  ...joins.flatMap((join) => [join.userId, join.nowMs]),
];

/** One JoinReply per join sent, in order. */
export function parseJoins(reply: unknown, count: number): JoinReply[] {
  const r = reply as Array<number | string>;
  const epoch = String(r[0]);
  const polls = parsePolls(r.slice(1 + 2 * count));
  const replies: JoinReply[] = [];
  let polled = 0;
  for (let i = 0; i < count; i++) {
    const number = Number(r[1 + 2 * i]);
    if (number === 0) replies.push('sold-out');
    else replies.push({ number, created: Number(r[2 + 2 * i]) === 1, epoch, status: polls[polled++] });
  }
  return replies;
}
