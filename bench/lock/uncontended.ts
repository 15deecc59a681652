import { BenchContext } from './bench-context';
import { CellResult, summarise } from './cell-result';
import { createLocker } from './lockers';
import { ContenderSpec, Locker } from './lockers/types';
import { CommandTally } from './redis-clients';
import { commandTimeUs, diff, ServerSnapshot, snapshot } from './server-stats';
import { sliceOrder } from './slice-order';

interface Entry {
  spec: ContenderSpec;
  tally: CommandTally;
  locker: Locker;
  waitsMs: number[];
  cycles: number;
  elapsedMs: number;
  /** Time per op (ms) in each round's slice, in round order (one entry per slice). */
  msPerOp: number[];
  server: ServerSnapshot;
  /** CPU µs this process used inside the slices (the contender's code, the driver, the socket's system calls). */
  clientCpuUs: number;
}

/**
 * Scenario (a): sequential acquire+release on a fresh key each time. Contenders take turns in
 * short slices over several rounds, in a shuffled order per round (the contenders the goals compare,
 * first in `specs`, back to back: see `sliceOrder`), so drift from the shared machine hits them all alike.
 * Each first runs one untimed slice of at least `uncontendedWarmupCycles` cycles: the peers' code
 * (and the driver's) is already optimised by the sweep before (a), a library's own code is not
 * until it has run a few thousand cycles (`node --trace-opt`: our acquire path was still
 * unoptimised after 600 cycles, what a 300 ms slice held on a slow day, and optimised by 3,000).
 */
export async function runUncontended(ctx: BenchContext, specs: ContenderSpec[]): Promise<CellResult[]> {
  collectYoungGarbage(); // fails here, before any work, when gc is not exposed
  const entries: Entry[] = [];
  for (const spec of specs) {
    const tally = new CommandTally();
    const locker = createLocker(spec, ctx.port, tally);
    await warmUp(ctx, locker);
    tally.reset();
    entries.push({ spec, tally, locker, waitsMs: [], cycles: 0, elapsedMs: 0, msPerOp: [], server: { totalCommands: 0, calls: {}, usec: {}, cpuSeconds: 0 }, clientCpuUs: 0 });
  }
  let clientCommands: Record<string, number>[];
  try {
    for (let round = 0; round < ctx.config.uncontendedRounds; round++) {
      for (const k of sliceOrder(entries.length, round, ctx.config.uncontendedGroup)) await runSlice(ctx, entries[k]);
    }
    clientCommands = entries.map((e) => e.tally.toJSON());
  } finally {
    for (const e of entries) await e.locker.close().catch(() => undefined);
  }
  return entries.map((e, k) => ({
    ...summarise({
      scenario: 'a',
      contender: e.spec,
      windowStart: 0,
      windowMs: e.elapsedMs,
      limitPerSec: 1000 / (2 * ctx.rtt.medianMs),
      sectionsInWindow: e.cycles,
      waitsMs: e.waitsMs,
      cycles: e.cycles,
      clientCommands: clientCommands[k],
      server: e.server,
      bookkeeping: { info: e.msPerOp.length },
      overlaps: 0,
      failures: 0,
      censored: 0,
      measureHandoff: false,
    }),
    sliceMsPerOp: e.msPerOp,
    cpuPerOpUs: {
      client: e.clientCpuUs / Math.max(1, e.cycles),
      server: (e.server.cpuSeconds * 1e6) / Math.max(1, e.cycles),
      commands: commandTimeUs(e.server, clientCommands[k]) / Math.max(1, e.cycles),
    },
  }));
}

async function runSlice(ctx: BenchContext, e: Entry): Promise<void> {
  const prefix = ctx.nextKey(`fresh-${e.spec.kind}`);
  const before = await snapshot(ctx.admin);
  collectYoungGarbage();
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  let now = t0;
  const cyclesBefore = e.cycles;
  while (now - t0 < ctx.config.uncontendedSliceMs) {
    const held = await e.locker.acquire(`${prefix}:${e.cycles}`, ctx.config.ttlMs);
    e.waitsMs.push(performance.now() - now);
    await held.release();
    e.cycles++;
    now = performance.now();
  }
  const cpu = process.cpuUsage(cpuBefore);
  e.clientCpuUs += cpu.user + cpu.system;
  e.elapsedMs += now - t0;
  e.msPerOp.push((now - t0) / (e.cycles - cyclesBefore));
  accumulate(e.server, diff(before, await snapshot(ctx.admin)));
}

/**
 * Empties the young generation (the bench runs with --expose-gc), so a slice pays for its own
 * garbage only, not for what the contender before it left: a scavenge costs about the same
 * whoever's garbage it collects. A minor collection only: a major one every slice would age the
 * bytecode of code that has not run for a few slices until V8 flushes it.
 */
function collectYoungGarbage(): void {
  const { gc } = globalThis as { gc?: (options: { type: 'minor' }) => void };
  // The report says every slice started this way: a run without the flag must not claim it.
  if (!gc) throw new Error('scenario (a) needs node --expose-gc (npm run bench:lock passes it)');
  gc({ type: 'minor' });
}

async function warmUp(ctx: BenchContext, locker: Locker): Promise<void> {
  const prefix = ctx.nextKey('warm');
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < ctx.config.uncontendedSliceMs || i < ctx.config.uncontendedWarmupCycles; i++) {
    await (await locker.acquire(`${prefix}:${i}`, ctx.config.ttlMs)).release();
  }
}

function accumulate(into: ServerSnapshot, d: ServerSnapshot): void {
  into.totalCommands += d.totalCommands;
  into.cpuSeconds += d.cpuSeconds;
  for (const [k, n] of Object.entries(d.calls)) into.calls[k] = (into.calls[k] ?? 0) + n;
  for (const [k, us] of Object.entries(d.usec)) into.usec[k] = (into.usec[k] ?? 0) + us;
}
