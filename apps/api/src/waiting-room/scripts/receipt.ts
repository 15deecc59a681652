import { QueueScript } from './script';

/**
 * Takes an admission for a purchase: an outstanding, unexpired admission moves to `buying` for
 * the purchase's duration (so it is never counted as outstanding while its order may already be
 * committed); one already buying or already used for an order (it then covers the rest of the
 * per-user limit until it expires) lets the purchase through as it is.
 * KEYS: admitted, buying, bought, meta. ARGV: place, now (ms), the admission's epoch.
 * Returns 1 when the purchase may go on, else 0 (also for an admission of a queue Redis lost).
 */
export const CLAIM: QueueScript = {
  name: 'waitingRoomClaim',
  keys: 4,
  lua: `
if redis.call('HGET', KEYS[4], 'epoch') ~= ARGV[3] then return 0 end
local now = tonumber(ARGV[2])
local expires = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if expires and expires > now then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[2], expires, ARGV[1])
  return 1
end
expires = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]))
if expires and expires > now then return 1 end
return redis.call('SISMEMBER', KEYS[3], ARGV[1])`,
};

/**
 * The purchase made an order: its ticket shows BOUGHT from now on. Idempotent.
 * KEYS: meta, admitted, buying, bought. ARGV: place. Returns 1 when recorded now, 0 when already.
 */
export const RECEIPT: QueueScript = {
  name: 'waitingRoomReceipt',
  keys: 4,
  lua: `
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if redis.call('SADD', KEYS[4], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'bought', 1)
return 1`,
};

/**
 * The purchase was refused (nothing was done): the admission is outstanding again until it
 * expires, unless another purchase of the same holder has meanwhile bought or released it.
 * KEYS: admitted, buying, bought. ARGV: place. Returns 1 when given back.
 */
export const RELEASE: QueueScript = {
  name: 'waitingRoomRelease',
  keys: 3,
  lua: `
local expires = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not expires or redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], expires, ARGV[1])
return 1`,
};
