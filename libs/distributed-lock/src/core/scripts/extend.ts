import { LuaScript } from '../lua-script';

// Compare-and-extend: only a lease still held by the token is pushed out, never another's.
const SOURCE = `
-- KEYS: the lock of each key
-- ARGV: token, ttl ms
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) ~= ARGV[1] then return 0 end
end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return 1
`;

/** 1 when every key was still ours and got the new ttl, else 0 (nothing changed). */
export const extendScript = new LuaScript<number>('extend', SOURCE);
