import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RedisServerProcess } from '../../test/support/redis-server';
import { BenchContext } from './bench-context';
import { writeSection } from './benchmarks-doc';
import { CellResult } from './cell-result';
import { ChildPool } from './child-pool';
import { benchConfig } from './config';
import { runContendedLocal } from './contended-local';
import { runContendedProcs } from './contended-procs';
import { checkGoals } from './goals';
import { loadOurs } from './lockers/ours';
import { ContenderKind, ContenderSpec } from './lockers/types';
import { describeMachine, finishMachine } from './machine';
import { goalsTable, resultsTable } from './report-markdown';
import { renderSection } from './report-section';
import { BenchReport } from './report-types';
import { plainClient } from './redis-clients';
import { measureRoundTrip } from './server-stats';
import { sweepPeers } from './sweep';
import { runUncontended } from './uncontended';

const ROOT = join(__dirname, '..', '..');
const names: Record<ContenderKind, string> = {
  raw: 'raw SET NX + Lua floor',
  rawFenced: 'raw fenced floor (SET NX + INCR script)',
  ours: '@app/distributed-lock',
  redlock: 'redlock@5.0.0-beta.2',
  sesame: '@sesamecare-oss/redlock',
  semaphore: 'redis-semaphore Mutex',
};

const log = (msg: string) => process.stderr.write(`[bench:lock] ${msg}\n`);

/** The raw floor first and ours second; (a) reorders them (see `uncontendedOrder`). */
function contenders(oursAvailable: boolean, tuned: Map<ContenderKind, Record<string, number>>): ContenderSpec[] {
  const specs: ContenderSpec[] = [{ kind: 'raw', label: names.raw, settings: {} }];
  if (oursAvailable) specs.push({ kind: 'ours', label: names.ours, settings: {} });
  for (const kind of ['redlock', 'sesame', 'semaphore'] as const) {
    specs.push({ kind, label: `${names[kind]} (defaults)`, settings: {} });
    specs.push({ kind, label: `${names[kind]} (tuned)`, settings: tuned.get(kind) ?? {} });
  }
  return specs;
}

/**
 * (a)'s contenders: the three its goals compare first (the raw fenced floor, ours, and
 * redis-semaphore with defaults) and a second instance of the floor, which run back to back
 * (`uncontendedGroup`), then the others. The floor against itself should read 1.00x: how far it
 * does not is how finely this run resolves the goals' ratios.
 */
function uncontendedOrder(specs: ContenderSpec[]): ContenderSpec[] {
  const first = (spec: ContenderSpec) => spec.kind === 'ours' || (spec.kind === 'semaphore' && spec.label.includes('defaults'));
  const floor = (label: string): ContenderSpec => ({ kind: 'rawFenced', label, settings: {} });
  return [floor(names.rawFenced), ...specs.filter(first), floor(`${names.rawFenced}, again (A/A control)`), ...specs.filter((spec) => !first(spec))];
}

async function main(): Promise<void> {
  const began = performance.now();
  const server = await RedisServerProcess.start();
  const admin = plainClient(server.port);
  let pool: ChildPool | undefined;
  let keySeq = 0;
  try {
    const machine = await describeMachine(admin);
    pool = await ChildPool.start(benchConfig.processes);
    const ctx: BenchContext = { port: server.port, admin, rtt: await measureRoundTrip(admin), config: benchConfig, nextKey: (p) => `bench:${p}:${++keySeq}` };
    log(`redis ${machine.redis} on port ${server.port}; RTT median ${ctx.rtt.medianMs.toFixed(3)} ms`);
    const oursAvailable = loadOurs() !== undefined;
    log(oursAvailable ? 'our library found' : 'our library does not export DistributedLock yet: peers and floor only');

    log('sweeping peer settings on scenario (b)…');
    const sweep = await sweepPeers(ctx, (kind) => `${names[kind]} (sweep)`);
    const specs = contenders(oursAvailable, new Map(sweep.map((s) => [s.kind, s.chosen])));

    const cells: CellResult[] = [];
    log('scenario (a)…');
    cells.push(...(await runUncontended(ctx, uncontendedOrder(specs))));
    for (const spec of specs) {
      log(`scenario (b) ${spec.label}…`);
      cells.push(await runContendedLocal(ctx, spec));
    }
    for (const spec of specs) {
      log(`scenario (c) ${spec.label}…`);
      cells.push(await runContendedProcs(ctx, pool, spec));
    }

    const goals = checkGoals(cells);
    const report: BenchReport = {
      date: new Date().toISOString(),
      command: 'npm run bench:lock',
      machine: finishMachine(machine),
      config: benchConfig,
      roundTrip: { start: ctx.rtt, end: await measureRoundTrip(admin) },
      oursAvailable,
      sweep,
      cells,
      goals,
      durationS: (performance.now() - began) / 1000,
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', 'lock.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeSection(join(ROOT, 'docs', 'BENCHMARKS.md'), renderSection(report));
    process.stdout.write(`${resultsTable(cells, goals)}\n\n${goalsTable(goals)}\n`);
    log(`done in ${report.durationS.toFixed(0)} s; wrote docs/BENCHMARKS.md and bench/results/lock.json`);
  } finally {
    pool?.stop();
    admin.disconnect();
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
