import { BenchContext } from './bench-context';
import { CellResult } from './cell-result';
import { runContendedLocal } from './contended-local';
import { ContenderKind, ContenderSpec } from './lockers/types';

/**
 * Candidate settings per peer. Redlock-style peers get unlimited retries (-1) so no acquire
 * fails mid-cell; only the poll spacing varies (200/100 is their default spacing). 10 ms is
 * redis-semaphore's default interval.
 */
const candidates: Record<'redlock' | 'sesame' | 'semaphore', Record<string, number>[]> = {
  redlock: redlockGrid(),
  sesame: redlockGrid(),
  semaphore: [1, 2, 5, 10, 20].map((retryInterval) => ({ retryInterval })),
};

function redlockGrid(): Record<string, number>[] {
  return [
    [1, 1],
    [2, 1],
    [5, 2],
    [10, 5],
    [20, 10],
    [50, 25],
    [100, 50],
    [200, 100],
  ].map(([retryDelay, retryJitter]) => ({ retryCount: -1, retryDelay, retryJitter }));
}

export interface SweepOutcome {
  kind: ContenderKind;
  chosen: Record<string, number>;
  tried: { settings: Record<string, number>; perSec: number; waitP99Ms: number; clientCommandsPerSection: number }[];
}

/** Picks each peer's setting with the most critical sections/s in a short scenario (b) run. */
export async function sweepPeers(ctx: BenchContext, label: (kind: ContenderKind) => string): Promise<SweepOutcome[]> {
  const outcomes: SweepOutcome[] = [];
  for (const kind of ['redlock', 'sesame', 'semaphore'] as const) {
    const tried: SweepOutcome['tried'] = [];
    let best: CellResult | undefined;
    for (const settings of candidates[kind]) {
      const spec: ContenderSpec = { kind, label: label(kind), settings };
      const cell = await runContendedLocal(ctx, spec, ctx.config.sweepMs);
      tried.push({ settings, perSec: cell.perSec, waitP99Ms: cell.waitP99Ms, clientCommandsPerSection: cell.clientCommandsPerSection });
      if (!best || cell.perSec > best.perSec) best = cell;
    }
    outcomes.push({ kind, chosen: best?.contender.settings ?? {}, tried });
  }
  return outcomes;
}
