import { join } from 'node:path';
import { RedisServerProcess } from '../../test/support/redis-server';
import { createLocker } from './lockers';
import { OurScriptsLocker } from './lockers/our-scripts';
import { OursLocker } from './lockers/ours';
import { ContenderKind, Locker } from './lockers/types';
import { CommandTally, countedClient } from './redis-clients';
import { diff, snapshot } from './server-stats';
import { median } from './stats';

/**
 * Scenario (a)'s cycle (acquire + release of a fresh key) alone, for a quick comparison and a CPU
 * profile of it, on a private Redis. Contenders take turns in slices of `cycles` for `rounds`
 * rounds; the medians of the slices are printed (wall time, this client's CPU and the Redis
 * server's, per cycle). Under a profiler:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/lock-prof -r ts-node/register/transpile-only \
 *     -r tsconfig-paths/register bench/lock/profile-uncontended.ts ours 5 20000
 *
 * Arguments: contender kinds joined by commas (default ours,semaphore,rawFenced), rounds (5),
 * cycles per slice (5,000). Each round starts with a different contender; the ratios printed are
 * each slice's time against the first contender's slice of the same round. The kind `baseline` is
 * this library at another commit, extracted first; the kind `scripts` is this library's two
 * scripts run directly (see OurScriptsLocker):
 *
 *   mkdir -p .infra/baseline && git archive <commit> libs/distributed-lock/src | tar -x -C .infra/baseline
 */
async function main(): Promise<void> {
  const [kinds = 'ours,semaphore,rawFenced', rounds = '5', cycles = '5000'] = process.argv.slice(2);
  const server = await RedisServerProcess.start();
  const entries = kinds.split(',').map((kind) => ({ kind, wall: [] as number[], cpu: [] as number[], redisCpu: [] as number[], locker: makeLocker(kind, server.port) }));
  const spy = server.client();
  try {
    for (const e of entries) await slice(e.locker, 'warm', 4000);
    for (let round = 0; round < Number(rounds); round++) {
      for (const e of entries.map((_, i) => entries[(i + round) % entries.length])) {
        const redisBefore = await snapshot(spy);
        const cpu = process.cpuUsage();
        const t0 = performance.now();
        await slice(e.locker, `r${round}`, Number(cycles));
        const used = process.cpuUsage(cpu);
        e.wall.push(((performance.now() - t0) * 1000) / Number(cycles));
        e.cpu.push((used.user + used.system) / Number(cycles));
        e.redisCpu.push((diff(redisBefore, await snapshot(spy)).cpuSeconds * 1e6) / Number(cycles));
      }
    }
    for (const e of entries) {
      const ratio = median(e.wall.map((wall, round) => wall / entries[0].wall[round]));
      process.stdout.write(`${e.kind}: ${median(e.wall).toFixed(1)} µs wall (${ratio.toFixed(3)}× ${entries[0].kind}), ${median(e.cpu).toFixed(1)} µs client CPU, ${median(e.redisCpu).toFixed(1)} µs Redis CPU per cycle (medians of ${rounds} slices)\n`);
    }
  } finally {
    spy.disconnect();
    for (const e of entries) await e.locker.close();
    await server.stop();
  }
}

function makeLocker(kind: string, port: number): Locker {
  if (kind === 'scripts') return new OurScriptsLocker(countedClient(port, new CommandTally()));
  if (kind !== 'baseline') return createLocker({ kind: kind as ContenderKind, label: kind, settings: {} }, port, new CommandTally());
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DistributedLock } = require(join(__dirname, '../../.infra/baseline/libs/distributed-lock/src/distributed-lock')) as { DistributedLock: never };
  return new OursLocker(DistributedLock, countedClient(port, new CommandTally()), {});
}

async function slice(locker: Locker, prefix: string, cycles: number): Promise<void> {
  for (let i = 0; i < cycles; i++) await (await locker.acquire(`${prefix}:${i}`, 5000)).release();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
