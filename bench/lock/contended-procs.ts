import { BenchContext, contendedLimit } from './bench-context';
import { CellResult, summarise } from './cell-result';
import { ChildPool } from './child-pool';
import { ContenderSpec } from './lockers/types';
import { diff, snapshot } from './server-stats';
import { countOverlaps, machineNow } from './stats';

/** Splits `total` workers over `n` processes as evenly as possible (50 over 4 → 13,13,12,12). */
const share = (total: number, n: number, i: number) => Math.floor(total / n) + (i < total % n ? 1 : 0);

/** Scenario (c): one hot key, the run's workers split across the pool's processes. */
export async function runContendedProcs(ctx: BenchContext, pool: ChildPool, spec: ContenderSpec): Promise<CellResult> {
  const { ttlMs, workers, criticalMs, cellMs } = ctx.config;
  await pool.ask(() => ({ type: 'prepare', port: ctx.port, spec, warmKey: ctx.nextKey('warm'), ttlMs }), 'ready');
  try {
    const key = ctx.nextKey('hot-c');
    const before = await snapshot(ctx.admin);
    const startAt = machineNow() + 100;
    const done = await pool.ask(
      (i) => ({ type: 'go', key, workers: share(workers, pool.size, i), idPrefix: `p${i}w`, startAt, durationMs: cellMs, criticalMs, ttlMs }),
      'done',
    );
    const server = diff(before, await snapshot(ctx.admin));
    const runs = done.map((d) => d.run);
    return summarise({
      scenario: 'c',
      contender: spec,
      windowStart: startAt,
      windowMs: cellMs,
      limitPerSec: contendedLimit(ctx),
      records: runs.flatMap((r) => r.records),
      waitsMs: runs.flatMap((r) => r.waitsMs),
      cycles: runs.reduce((n, r) => n + r.records.length, 0),
      clientCommands: sumCounts(done.map((d) => d.clientCommands)),
      server,
      bookkeeping: { info: 1 },
      overlaps: countOverlaps(runs.flatMap((r) => r.records)),
      failures: runs.reduce((n, r) => n + r.failures, 0),
      censored: runs.reduce((n, r) => n + r.censored, 0),
      measureHandoff: true,
    });
  } finally {
    await pool.ask(() => ({ type: 'close' }), 'closed');
  }
}

function sumCounts(all: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const counts of all) for (const [k, n] of Object.entries(counts)) out[k] = (out[k] ?? 0) + n;
  return out;
}
