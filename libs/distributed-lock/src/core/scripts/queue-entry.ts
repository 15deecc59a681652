// A Lua fragment shared by the scripts that queue a waiter. It expects the locals `entry`
// (token:ttl), `nowMs` (server time) and `queueFor` (ms the entry stays live unless refreshed),
// and KEYS[3] / KEYS[4] to be the key's waiter queue (list) and waiter deadlines (zset).
// A waiter already queued only has its deadline moved; it keeps its place in the list.
export const QUEUE_ENTRY_LUA = `
  if redis.call('ZADD', KEYS[4], nowMs + queueFor, entry) == 1 then redis.call('RPUSH', KEYS[3], entry) end
  redis.call('PEXPIRE', KEYS[3], 60000)
  redis.call('PEXPIRE', KEYS[4], 60000)`;
