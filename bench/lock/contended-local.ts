import { BenchContext, contendedLimit } from './bench-context';
import { CellResult, summarise } from './cell-result';
import { createLocker } from './lockers';
import { ContenderSpec } from './lockers/types';
import { LocalOverlapProbe } from './overlap-probe';
import { CommandTally } from './redis-clients';
import { runHotWorkers } from './hot-workers';
import { diff, snapshot } from './server-stats';
import { machineNow } from './stats';

/** Scenario (b): one hot key, all workers in this process sharing one contender instance. */
export async function runContendedLocal(ctx: BenchContext, spec: ContenderSpec, windowMs = ctx.config.cellMs): Promise<CellResult> {
  const tally = new CommandTally();
  const locker = createLocker(spec, ctx.port, tally);
  try {
    await (await locker.acquire(ctx.nextKey('warm'), ctx.config.ttlMs)).release();
    tally.reset();
    const before = await snapshot(ctx.admin);
    const startAt = machineNow() + 20;
    const run = await runHotWorkers({
      locker,
      key: ctx.nextKey('hot-b'),
      ttlMs: ctx.config.ttlMs,
      workers: ctx.config.workers,
      idPrefix: 'w',
      startAt,
      durationMs: windowMs,
      criticalMs: ctx.config.criticalMs,
      probes: [new LocalOverlapProbe()],
    });
    const server = diff(before, await snapshot(ctx.admin));
    return summarise({
      scenario: 'b',
      contender: spec,
      windowStart: startAt,
      windowMs,
      limitPerSec: contendedLimit(ctx),
      records: run.records,
      waitsMs: run.waitsMs,
      cycles: run.records.length,
      clientCommands: tally.toJSON(),
      server,
      bookkeeping: { info: 1 },
      overlaps: run.overlaps,
      failures: run.failures,
      censored: run.censored,
      measureHandoff: true,
    });
  } finally {
    await locker.close().catch(() => undefined);
  }
}
