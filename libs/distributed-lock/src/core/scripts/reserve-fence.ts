import { LuaScript } from '../lua-script';
import { NEXT_FENCE_LUA } from './next-fence';

// While a holder works, reserves a block of fences for the next holders of its process (who will
// inherit the holder's token) and makes sure the lease lasts the next holder's ttl (never
// shortening it).
const SOURCE = `
-- KEYS: lock, fence counter
-- ARGV: token, next holder's ttl ms, fences wanted
${NEXT_FENCE_LUA}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local ttl = tonumber(ARGV[2])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return nextFence(KEYS[2], tonumber(ARGV[3]))
`;

/** The last fence of the block; -1: the lock is not held by the token. */
export const reserveFenceScript = new LuaScript<number>('reserve-fence', SOURCE);
