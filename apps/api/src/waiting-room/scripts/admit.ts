import { QueueScript } from './script';

/**
 * The leader's step: drops admissions expired more than a grace ago, then admits the next places
 * in queue order, as many as the pace (a token bucket holding at most one second's worth), the
 * stock still for sale and the queue allow.
 * KEYS: meta, admitted, buying, admissions log. ARGV: now (ms), stock still for sale, rate (per s), admission
 * TTL (ms), the meta's `bought` count read before the stock was, grace (ms), perUserLimit.
 *
 * Each admission may buy up to perUserLimit (L) units, so at most ceil(stock / L) are outstanding
 * (admitted or buying): however the holders buy, those left outstanding then never outnumber the
 * units left. Receipts written between the `bought` read and this script have left `buying` while
 * the stock read may predate their orders: their L units each are taken off the stock first.
 * Nothing is admitted until the queue is open (`pre` set) and its pre-queue shuffled. Each step
 * that admits logs its places and time ("first:last:now"), for the audit file: one entry a step.
 * Returns {admitted now, expired now, outstanding, still waiting}.
 */
export const ADMIT: QueueScript = {
  name: 'waitingRoomAdmit',
  keys: 4,
  lua: `
local now = tonumber(ARGV[1])
local stock = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local limit = tonumber(ARGV[7])
local expired = redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[6]))
  + redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[6]))
if expired > 0 then redis.call('HINCRBY', KEYS[1], 'expired', expired) end
local m = redis.call('HMGET', KEYS[1], 'served', 'seq', 'pre', 'ranked', 'credit', 'tickAt', 'bought')
local served = tonumber(m[1]) or 0
local seq = tonumber(m[2]) or 0
local pre = tonumber(m[3])
local last = tonumber(m[6]) or now
local credit = math.min((tonumber(m[5]) or 0) + rate * math.max(now - last, 0) / 1000, math.max(rate, 1))
local boughtSince = math.max((tonumber(m[7]) or 0) - tonumber(ARGV[5]), 0)
local outstanding = redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3])
local units = math.max(stock - boughtSince * limit, 0)
local admitted = 0
if pre ~= nil and (pre == 0 or m[4] == '1') then
  admitted = math.max(math.min(math.floor(credit), math.ceil(units / limit) - outstanding, seq - served), 0)
  for place = served + 1, served + admitted do
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), place)
  end
  credit = credit - admitted
  if admitted > 0 then redis.call('RPUSH', KEYS[4], (served + 1) .. ':' .. (served + admitted) .. ':' .. now) end
end
local soldOut = '0'
if stock <= 0 then soldOut = '1' end
redis.call('HSET', KEYS[1], 'served', served + admitted, 'credit', tostring(credit), 'tickAt', now, 'rate', ARGV[3], 'soldOut', soldOut)
return {admitted, expired, outstanding + admitted, seq - served - admitted}`,
};

export interface AdmitReply {
  admitted: number;
  expired: number;
  outstanding: number;
  waiting: number;
}

export function parseAdmit(reply: unknown): AdmitReply {
  const [admitted, expired, outstanding, waiting] = (reply as number[]).map(Number);
  return { admitted, expired, outstanding, waiting };
}
