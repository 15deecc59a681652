import { LuaScript } from '../lua-script';

// Used after taking keys of different Cluster slots one by one: lifts each key's counter to
// the lock's common fence, never lowering a counter that moved on meanwhile.
const SOURCE = `
-- KEYS: a fence counter
-- ARGV: the fence it must reach
if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
`;

export const raiseFenceScript = new LuaScript<number>('raise-fence', SOURCE);
