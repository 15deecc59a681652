import { RedisServerProcess } from '../support/redis-server';

/**
 * Stands in for the suite's `test/shell.ts`, which starts and stops its Redis servers with docker
 * compose: here server N is a private redis-server (persisting nothing) on the port of
 * `REDIS_URI<N>`, which run.sh sets before the suite's clients read it. Mocha starts the servers
 * before the first test (`mochaGlobalSetup`, this file being loaded with -r) and stops them after
 * the last.
 */
const SERVERS = [1, 2, 3];
const running = new Map<number, RedisServerProcess>();

function portOf(num: number): number {
  const uri = process.env[`REDIS_URI${num}`];
  if (!uri) throw new Error(`REDIS_URI${num} is not set: run the suite through run.sh`);
  return Number(new URL(uri).port);
}

export async function upRedisServer(num: number): Promise<void> {
  if (!running.has(num)) running.set(num, await RedisServerProcess.start([], portOf(num)));
}

export async function downRedisServer(num: number): Promise<void> {
  await running.get(num)?.stop();
  running.delete(num);
}

export async function mochaGlobalSetup(): Promise<void> {
  for (const num of SERVERS) await upRedisServer(num);
}

export async function mochaGlobalTeardown(): Promise<void> {
  for (const num of [...running.keys()]) await downRedisServer(num);
}
