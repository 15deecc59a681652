import { LuaScript } from '../lua-script';

// Lifts a fence counter to a fence the storage has seen (a counter Redis lost, or keys of
// different Cluster slots taken one by one), never lowering a counter that moved on meanwhile.
const SOURCE = `
-- KEYS: a fence counter
-- ARGV: the fence it must reach
local current = redis.call('GET', KEYS[1])
if not current or tonumber(current) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
`;

export const raiseFenceScript = new LuaScript<number>('raise-fence', SOURCE);
