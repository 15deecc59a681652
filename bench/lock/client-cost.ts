import type Redis from 'ioredis';
import { loadOurs, OursLocker } from './lockers/ours';
import { OurScriptsLocker } from './lockers/our-scripts';
import { RawFencedFloorLocker } from './lockers/raw-fenced-floor';
import { SemaphoreMutexLocker } from './lockers/semaphore-mutex';
import { Locker } from './lockers/types';
import { median } from './stats';

/**
 * Scenario (a)'s cycle (acquire + release of a fresh key) against a stand-in for the Redis client
 * that answers every command in the next turn of the event loop: what is left is each contender's
 * own JavaScript, with no network, no Redis and no driver (the wall-clock cycle of
 * `profile-uncontended.ts` mixes all of those, and moves by several µs from run to run).
 *
 *   node -r ts-node/register/transpile-only -r tsconfig-paths/register bench/lock/client-cost.ts [rounds] [cycles]
 *
 * Contenders take turns, each round starting with another one; medians of the rounds are printed.
 */
async function main(): Promise<void> {
  const [rounds = '11', cycles = '50000'] = process.argv.slice(2);
  const Ours = loadOurs();
  if (!Ours) throw new Error('@app/distributed-lock does not export DistributedLock');
  const contenders: Array<{ kind: string; locker: Locker; cpu: number[] }> = [
    { kind: 'raw fenced floor', locker: new RawFencedFloorLocker(instantClient()), cpu: [] },
    { kind: 'our scripts, called directly', locker: new OurScriptsLocker(instantClient()), cpu: [] },
    { kind: 'ours', locker: new OursLocker(Ours, instantClient(), {}), cpu: [] },
    { kind: 'redis-semaphore', locker: new SemaphoreMutexLocker(instantClient(), {}), cpu: [] },
  ];
  for (let round = -1; round < Number(rounds); round++) {
    for (let i = 0; i < contenders.length; i++) {
      const c = contenders[(i + Math.max(round, 0)) % contenders.length];
      const before = process.cpuUsage();
      for (let n = 0; n < Number(cycles); n++) await (await c.locker.acquire(`r${round}:${n}`, 5000)).release();
      const used = process.cpuUsage(before);
      if (round >= 0) c.cpu.push((used.user + used.system) / Number(cycles)); // round -1 warms up
    }
  }
  const floor = median(contenders[0].cpu);
  for (const c of contenders) process.stdout.write(`${c.kind}: ${median(c.cpu).toFixed(2)} µs CPU per cycle (+${(median(c.cpu) - floor).toFixed(2)} over the floor)\n`);
  for (const c of contenders) await c.locker.close();
}

/**
 * Answers as an uncontended Redis would: SET NX takes the lock, a script returns a positive
 * integer (a fence, "released"), all one turn of the event loop later, as a socket reply would.
 */
function instantClient(): Redis {
  let counter = 0;
  const reply = <T>(value: T) => new Promise<T>((resolve) => setImmediate(resolve, value));
  const client = {
    status: 'ready',
    options: {},
    set: () => reply('OK'),
    evalsha: () => reply(++counter),
    defineCommand(name: string) {
      (client as Record<string, unknown>)[name] = () => reply(++counter);
    },
    quit: () => reply('OK'),
    duplicate: () => instantClient(),
    on: () => client,
    once: () => client,
  };
  return client as unknown as Redis;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
