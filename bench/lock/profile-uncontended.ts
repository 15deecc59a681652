import { RedisServerProcess } from '../../test/support/redis-server';
import { createLocker } from './lockers';
import { ContenderKind, Locker } from './lockers/types';
import { CommandTally } from './redis-clients';
import { median } from './stats';

/**
 * Scenario (a)'s cycle (acquire + release of a fresh key) alone, for a quick comparison and a CPU
 * profile of it, on a private Redis. Contenders take turns in slices of `cycles` for `rounds`
 * rounds; the medians of the slices are printed. Under a profiler:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/lock-prof -r ts-node/register/transpile-only \
 *     -r tsconfig-paths/register bench/lock/profile-uncontended.ts ours 5 20000
 *
 * Arguments: contender kinds joined by commas (default ours,semaphore,rawFenced), rounds (5),
 * cycles per slice (5,000).
 */
async function main(): Promise<void> {
  const [kinds = 'ours,semaphore,rawFenced', rounds = '5', cycles = '5000'] = process.argv.slice(2);
  const server = await RedisServerProcess.start();
  const entries = kinds.split(',').map((kind) => ({ kind, wall: [] as number[], cpu: [] as number[], locker: createLocker({ kind: kind as ContenderKind, label: kind, settings: {} }, server.port, new CommandTally()) }));
  try {
    for (const e of entries) await slice(e.locker, 'warm', 4000);
    for (let round = 0; round < Number(rounds); round++) {
      for (const e of round % 2 ? [...entries].reverse() : entries) {
        const cpu = process.cpuUsage();
        const t0 = performance.now();
        await slice(e.locker, `r${round}`, Number(cycles));
        const used = process.cpuUsage(cpu);
        e.wall.push(((performance.now() - t0) * 1000) / Number(cycles));
        e.cpu.push((used.user + used.system) / Number(cycles));
      }
    }
    for (const e of entries) process.stdout.write(`${e.kind}: ${median(e.wall).toFixed(1)} µs wall, ${median(e.cpu).toFixed(1)} µs client CPU per cycle (medians of ${rounds} slices)\n`);
  } finally {
    for (const e of entries) await e.locker.close();
    await server.stop();
  }
}

async function slice(locker: Locker, prefix: string, cycles: number): Promise<void> {
  for (let i = 0; i < cycles; i++) await (await locker.acquire(`${prefix}:${i}`, 5000)).release();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
