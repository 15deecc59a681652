import { QueueScript } from './script';

/**
 * The public figures of a queue. KEYS: meta, admitted, the product's sold-out flag. ARGV: now (ms).
 * Returns {seq, served, outstanding unexpired admissions, soldOut (0/1), pre (-1: open)}.
 */
export const SUMMARY: QueueScript = {
  name: 'waitingRoomSummary',
  keys: 3,
  lua: `
local m = redis.call('HMGET', KEYS[1], 'seq', 'served', 'soldOut', 'pre')
local soldOut = 0
if m[3] == '1' or redis.call('EXISTS', KEYS[3]) == 1 then soldOut = 1 end
return {tonumber(m[1]) or 0, tonumber(m[2]) or 0, redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[1], '+inf'), soldOut, tonumber(m[4]) or -1}`,
};

export interface SummaryReply {
  seq: number;
  served: number;
  admitted: number;
  soldOut: boolean;
  pre: number;
}

export function parseSummary(reply: unknown): SummaryReply {
  const [seq, served, admitted, soldOut, pre] = (reply as number[]).map(Number);
  return { seq, served, admitted, soldOut: soldOut === 1, pre };
}
