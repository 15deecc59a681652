import { QueueScript } from './script';

/**
 * Records that the holder of a place has an order: the place stops counting as an outstanding
 * admission and its ticket shows BOUGHT. Idempotent.
 * KEYS: meta, admitted, bought. ARGV: place. Returns 1 when recorded now, 0 when already.
 */
export const RECEIPT: QueueScript = {
  name: 'waitingRoomReceipt',
  keys: 3,
  lua: `
if redis.call('SADD', KEYS[3], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'bought', 1)
return 1`,
};

/**
 * Whether an admission is good for a purchase: outstanding and unexpired, or already used for an
 * order (the admission then covers the rest of the per-user limit until it expires).
 * KEYS: admitted, bought. ARGV: place, now (ms). Returns 1 or 0.
 */
export const CHECK_ADMISSION: QueueScript = {
  name: 'waitingRoomCheckAdmission',
  keys: 2,
  lua: `
local expires = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if expires and expires > tonumber(ARGV[2]) then return 1 end
return redis.call('SISMEMBER', KEYS[2], ARGV[1])`,
};
