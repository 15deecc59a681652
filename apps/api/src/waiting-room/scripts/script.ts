import type { RedisConnection } from '../../common/redis/redis-client.factory';

/** A Lua script of the queue, run by EVALSHA through ioredis (which re-sends the text on NOSCRIPT). */
export interface QueueScript {
  name: string;
  keys: number;
  lua: string;
}

type Runner = (...args: Array<string | number | Buffer>) => Promise<unknown>;

const defined = new WeakMap<object, Set<string>>();

/** Runs `script` on `redis`, defining it on that client the first time. */
export function runScript(
  redis: RedisConnection,
  script: QueueScript,
  keys: string[],
  args: Array<string | number>,
): Promise<unknown> {
  let names = defined.get(redis);
  if (!names) defined.set(redis, (names = new Set()));
  if (!names.has(script.name)) {
    redis.defineCommand(script.name, { numberOfKeys: script.keys, lua: script.lua });
    names.add(script.name);
  }
  return (redis as unknown as Record<string, Runner>)[script.name](...keys, ...args);
}
