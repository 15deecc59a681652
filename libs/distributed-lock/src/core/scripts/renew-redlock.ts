import { LuaScript } from '../lua-script';

// A Redlock renewal on one node. Where the token still holds every key, the lease is pushed out.
// Where a key is gone (the node restarted empty, or its copy expired) and no one else holds it,
// the lease is set again, and the fence counter raised to the lease's fence, so a later holder on
// this node still gets a larger fence. A key held by another token changes nothing. The caller
// counts only nodes that still held the lease toward the quorum (a re-set node may have served
// another holder meanwhile), but a re-set node holds the lease for the renewals that follow.
const SOURCE = `
-- KEYS: per key, its lock and its fence counter (lock1, fence1, lock2, fence2, ...)
-- ARGV: token, ttl ms, the lease's fence
local missing = false
for i = 1, #KEYS, 2 do
  local holder = redis.call('GET', KEYS[i])
  if not holder then missing = true elseif holder ~= ARGV[1] then return 0 end
end
for i = 1, #KEYS, 2 do
  if missing then
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
    local counter = redis.call('GET', KEYS[i + 1])
    if not counter or tonumber(counter) < tonumber(ARGV[3]) then redis.call('SET', KEYS[i + 1], ARGV[3]) end
  else
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
  end
end
if missing then return 2 end
return 1
`;

export const STILL_HELD = 1;

/** 1 still held and extended; 2 re-set where it was gone; 0 another token holds a key. */
export const renewRedlockScript = new LuaScript<0 | 1 | 2>('renew-redlock', SOURCE);
