import { QueueScript } from './script';

/**
 * Everything the polls of some tickets of one product need, in one round trip and O(1) of the
 * queue's length per ticket. KEYS: meta, ranks, admitted, bought, the product's sold-out flag,
 * buying. ARGV: the tickets' numbers. A pre-queue ticket's place is read from the ranks string
 * (-1 until the start's shuffle).
 * Returns {served, seq, pre (-1: not frozen), soldOut (0/1), rate, epoch ('' when none)}, then per
 * ticket {place, bought (0/1), admission expiry (ms, -1: none)}.
 */
/**
 * The poll's Lua, for the keys named by `k` (Lua expressions such as `KEYS[1]`) and the ticket
 * numbers in the Lua table `numbers`; leaves the answer in the local `out`. Shared by POLL and by
 * JOIN, which answers its ticket's status in the same round trip.
 */
export function pollLua(
  k: { meta: string; ranks: string; admitted: string; bought: string; soldOutFlag: string; buying: string },
  numbers: string,
): string {
  return `
local m = redis.call('HMGET', ${k.meta}, 'served', 'pre', 'ranked', 'soldOut', 'seq', 'rate', 'epoch')
local served = tonumber(m[1]) or 0
local pre = tonumber(m[2])
local soldOut = 0
if m[4] == '1' or redis.call('EXISTS', ${k.soldOutFlag}) == 1 then soldOut = 1 end
local out = {served, tonumber(m[5]) or 0, pre or -1, soldOut, m[6] or '0', m[7] or ''}
for i = 1, #${numbers} do
  local n = tonumber(${numbers}[i])
  local place = n
  if pre == nil or n <= pre then
    place = -1
    if m[3] == '1' then
      local b = redis.call('GETRANGE', ${k.ranks}, (n - 1) * 4, (n - 1) * 4 + 3)
      if #b == 4 then place = ((b:byte(1) * 256 + b:byte(2)) * 256 + b:byte(3)) * 256 + b:byte(4) end
    end
  end
  local bought, expires = 0, -1
  if place > 0 and place <= served then
    bought = redis.call('SISMEMBER', ${k.bought}, place)
    expires = tonumber(redis.call('ZSCORE', ${k.admitted}, place) or redis.call('ZSCORE', ${k.buying}, place)) or -1
  end
  out[#out + 1] = place
  out[#out + 1] = bought
  out[#out + 1] = expires
end`;
}

export const POLL: QueueScript = {
  name: 'waitingRoomPoll',
  keys: 6,
  lua:
    pollLua(
      {
        meta: 'KEYS[1]',
        ranks: 'KEYS[2]',
        admitted: 'KEYS[3]',
        bought: 'KEYS[4]',
        soldOutFlag: 'KEYS[5]',
        buying: 'KEYS[6]',
      },
      'ARGV',
    ) + '\nreturn out',
};

export interface PollReply {
  /** The ticket's place in the queue (1 = first ever admitted); -1 while the pre-queue is unshuffled. */
  place: number;
  served: number;
  seq: number;
  /** The pre-queue's size, -1 while it is still open. */
  pre: number;
  bought: boolean;
  /** When the ticket's admission expires (ms); -1 when it has none outstanding. */
  admissionExpiresAt: number;
  soldOut: boolean;
  /** Admissions per second the leader is pacing at. */
  rate: number;
  /** The queue's epoch; a ticket of another epoch belongs to a queue Redis lost. */
  epoch: string;
}

const HEAD = 6;
const PER_TICKET = 3;

/** One PollReply per ticket number sent, in order. */
export function parsePolls(reply: unknown): PollReply[] {
  const r = reply as Array<number | string>;
  const shared = {
    served: Number(r[0]),
    seq: Number(r[1]),
    pre: Number(r[2]),
    soldOut: Number(r[3]) === 1,
    rate: Number(r[4]) || 0,
    epoch: String(r[5]),
  };
  const polls: PollReply[] = [];
  for (let at = HEAD; at + PER_TICKET <= r.length; at += PER_TICKET) {
    polls.push({
      ...shared,
      place: Number(r[at]),
      bought: Number(r[at + 1]) === 1,
      admissionExpiresAt: Number(r[at + 2]),
    });
  }
  return polls;
}
