import { parsePolls, pollLua, PollReply } from './poll';
import { QueueScript } from './script';
import type { OverCapWork } from '../join-work/over-cap-work';

/**
 * Takes tickets for the joins of one product that arrived together, or finds the ones their users
 * already have, and answers each ticket's status as POLL would, in the same round trip. The joins
 * are taken in the order sent (their arrival order).
 * KEYS: meta, users, the product's sold-out flag, ranks, admitted, bought, buying, addresses,
 * work nonces. ARGV: saleStartsAt (ms, -1: none), a candidate epoch, the tickets allowed per client
 * address (0: no cap), whether a new ticket needs work (1/0), the squarings of the first ticket over
 * the cap (0: none is given over it) and the most any asks, then per join its userId, now (ms),
 * client address, work nonce ('' none, '!' a solution that did not check), the work's expiry (ms)
 * and its squarings. A user who holds a ticket gets it back, with or without work. A new ticket
 * needs, in this order: for a sale that asks work, a checked solution whose nonce was never claimed
 * (-1: none given, -2: not checked or claimed before); and an address under its cap of live
 * tickets, or over it, work of at least first x 2^(live tickets - cap) squarings, at most the most
 * (-3: not paid): so people behind one shared address pay seconds, never a lock-out, and one who
 * holds hundreds of accounts there pays more with each. Only then are the nonce claimed (kept until
 * the challenge expires) and the ticket listed under its address: a refused join changes nothing.
 * An address's entry lists its tickets' numbers ("12,57"): the cap and those paid for over it. Only
 * when the list holds the cap are its tickets looked at, as POLL would: one no longer live (bought,
 * or admitted and its admission expired or dropped) leaves the list; WAITING and unexpired ADMITTED
 * ones stay. A join under the cap reads and writes the entry only.
 * The first join at or after the start freezes the pre-queue's size (`pre`): tickets up to it are
 * shuffled at the start, later ones keep their arrival order. The queue's epoch is set by its first
 * join: a queue lost with its Redis starts again under another, and its old tickets are known as such.
 * Returns {epoch, then per join: number (0: sold out, no ticket; negative: refused as above),
 * created (0/1; for -3 the soonest admission expiry (ms) among the address's tickets, -1: none
 * admitted), for -3 the squarings a join needs now (0: none is given over the cap), else 0}, then
 * POLL's answer for the joins that have a ticket, in order.
 */
export const JOIN: QueueScript = {
  name: 'waitingRoomJoins',
  keys: 9,
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
local perAddress = tonumber(ARGV[3])
local needsWork = ARGV[4] == '1'
local firstOver, mostOver = tonumber(ARGV[5]), tonumber(ARGV[6])
local pruned = false
-- The tickets of \`held\` still live at \`now\`, and the soonest admission expiry among them (-1: none admitted).
local function live(held, now)
  local m = redis.call('HMGET', KEYS[1], 'served', 'pre', 'ranked')
  local served, pre = tonumber(m[1]) or 0, tonumber(m[2])
  local kept, soonest = {}, -1
  for _, t in ipairs(held) do
    local place = tonumber(t)
    if pre == nil or place <= pre then
      local n = place
      place = -1
      if m[3] == '1' then
        local b = redis.call('GETRANGE', KEYS[4], (n - 1) * 4, (n - 1) * 4 + 3)
        if #b == 4 then place = ((b:byte(1) * 256 + b:byte(2)) * 256 + b:byte(3)) * 256 + b:byte(4) end
      end
    end
    local alive = true
    if place > 0 and place <= served then
      -- A receipt takes its place out of both sets, so an expiry found here is never a bought ticket's.
      local expires = tonumber(redis.call('ZSCORE', KEYS[5], place) or redis.call('ZSCORE', KEYS[7], place))
      alive = expires ~= nil and expires > now
      if alive and (soonest < 0 or expires < soonest) then soonest = expires end
    end
    if alive then kept[#kept + 1] = t end
  end
  return kept, soonest
end
for i = 7, #ARGV, 6 do
  local created, need = 0, 0
  local held
  local n = redis.call('HGET', KEYS[2], ARGV[i])
  if n then n = tonumber(n) elseif soldOut then n = 0 else
    local nonce = ARGV[i + 3]
    -- The squarings of checked work whose name was never claimed (0: none such).
    local paid = 0
    if nonce ~= '' and nonce ~= '!' then
      if not pruned then
        redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', ARGV[i + 1])
        pruned = true
      end
      if redis.call('ZSCORE', KEYS[9], nonce) then nonce = '!' else paid = tonumber(ARGV[i + 5]) end
    end
    if needsWork and nonce == '' then n = -1 elseif needsWork and nonce == '!' then n = -2 end
    if not n and perAddress > 0 then
      held = {}
      for t in string.gmatch(redis.call('HGET', KEYS[8], ARGV[i + 2]) or '', '%d+') do held[#held + 1] = t end
      if #held >= perAddress then
        local soonest
        held, soonest = live(held, tonumber(ARGV[i + 1]))
        if #held >= perAddress then
          need = math.min(firstOver * 2 ^ (#held - perAddress), mostOver)
          if need == 0 or paid < need then
            n = -3
            created = soonest
          end
        end
      end
    end
    if not n then
      need = 0
      if nonce ~= '' and nonce ~= '!' then redis.call('ZADD', KEYS[9], ARGV[i + 4], nonce) end
      if (starts < 0 or tonumber(ARGV[i + 1]) >= starts) and redis.call('HEXISTS', KEYS[1], 'pre') == 0 then
        redis.call('HSET', KEYS[1], 'pre', redis.call('HGET', KEYS[1], 'seq') or '0')
      end
      n = redis.call('HINCRBY', KEYS[1], 'seq', 1)
      redis.call('HSET', KEYS[2], ARGV[i], n)
      if held then
        held[#held + 1] = tostring(n)
        redis.call('HSET', KEYS[8], ARGV[i + 2], table.concat(held, ','))
      end
      created = 1
    end
  end
  answer[#answer + 1] = n
  answer[#answer + 1] = created
  answer[#answer + 1] = need
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
  /** The client's address; its tickets are listed only when the sale caps live tickets per address. */
  address?: string;
  /** Work the join carried: the checked solution's nonce, expiry and squarings, or null when none checked. */
  work?: { nonce: string; expiresAtMs: number; squarings: number } | null;
}

/** What a batch of joins shares: the product's terms. */
export interface JoinTerms {
  saleStartsAtMs: number | null;
  /** 0: no cap. */
  joinsPerAddress: number;
  needsWork: boolean;
  /** The work a ticket over the cap needs (join-work/over-cap-work.ts); absent: none is given over it. */
  overCap?: OverCapWork;
}

/** A join refused because its address holds its cap of live tickets (and the join's work, if any, does not pay for one more). */
export interface AddressLimit {
  refusal: 'address-limit';
  /** The soonest admission expiry (ms) among the address's live tickets; null when none is admitted yet. */
  soonestAdmissionExpiryMs: number | null;
  /** The squarings of work that would take a ticket now; 0 when none would. */
  squaringsNeeded: number;
}

/** A join refused by the script: no work given, work not good (or used), the address's live tickets at the cap. */
export type JoinRefusal = 'work-required' | 'work-invalid' | AddressLimit;

export type JoinReply = { number: number; created: boolean; epoch: string; status: PollReply } | 'sold-out';

const WORK_REFUSALS: Record<number, JoinRefusal> = { [-1]: 'work-required', [-2]: 'work-invalid' };

/** The script's arguments after the keys. */
export const joinArgs = (terms: JoinTerms, epochCandidate: string, joins: JoinRequest[]): Array<string | number> => [
  terms.saleStartsAtMs ?? -1,
  epochCandidate,
  terms.joinsPerAddress,
  terms.needsWork ? 1 : 0,
  terms.overCap?.first ?? 0,
  terms.overCap?.most ?? 0,
  ...joins.flatMap((join) => [
    join.userId,
    join.nowMs,
    join.address ?? '',
    join.work === undefined ? '' : join.work === null ? '!' : join.work.nonce,
    join.work ? join.work.expiresAtMs : 0,
    join.work ? join.work.squarings : 0,
  ]),
];

/** One JoinReply per join sent, in order. */
export function parseJoins(reply: unknown, count: number): Array<JoinReply | JoinRefusal> {
  const r = reply as Array<number | string>;
  const epoch = String(r[0]);
  const polls = parsePolls(r.slice(1 + 3 * count));
  const replies: Array<JoinReply | JoinRefusal> = [];
  let polled = 0;
  for (let i = 0; i < count; i++) {
    const [number, second, need] = [1, 2, 3].map((at) => Number(r[at + 3 * i]));
    if (number === 0) replies.push('sold-out');
    else if (number === -3)
      replies.push({
        refusal: 'address-limit',
        soonestAdmissionExpiryMs: second > 0 ? second : null,
        squaringsNeeded: need,
      });
    else if (number < 0) replies.push(WORK_REFUSALS[number]);
    else replies.push({ number, created: second === 1, epoch, status: polls[polled++] });
  }
  return replies;
}
