import { ContenderSpec } from './lockers/types';
import { ServerSnapshot } from './server-stats';
import { handoffGaps, handoffShare, percentile, SectionRecord } from './stats';

export type Scenario = 'a' | 'b' | 'c';

export interface CellResult {
  scenario: Scenario;
  contender: ContenderSpec;
  windowMs: number;
  /** Sections that began inside the window. */
  sections: number;
  perSec: number;
  limitPerSec: number;
  fractionOfLimit: number;
  /** (a) only: time per op (ms) in each round's slice, in round order, to pair contenders by round. */
  sliceMsPerOp?: number[];
  /**
   * (a) only: CPU µs per acquire+release, in the bench process (the contender's code, the driver,
   * the socket's system calls) and in Redis (the one INFO per slice included), and the part of
   * Redis's that ran the commands themselves (`commands`: commandTimeUs). On this shared VM these
   * drift far less than wall time, so they show where a contender's time goes.
   */
  cpuPerOpUs?: { client: number; server: number; commands: number };
  waitP50Ms: number;
  waitP99Ms: number;
  waitMaxMs: number;
  /** null where it has no meaning (uncontended). */
  handoffShare: number | null;
  /** Lock idle between one holder's release call and the next holder's acquire; null uncontended. */
  gapP50Ms: number | null;
  gapP99Ms: number | null;
  /** Measured hold time; above the nominal critical section when the shared CPU preempts the worker. */
  holdMeanMs: number | null;
  /** Commands the contender sent, per acquire+release (drain included in both sides). */
  clientCommandsPerSection: number;
  /** Commands Redis executed, Lua inner calls included, bookkeeping excluded. */
  serverCommandsPerSection: number;
  clientCommands: Record<string, number>;
  serverCommands: Record<string, number>;
  overlaps: number;
  failures: number;
  censored: number;
}

export interface CellInputs {
  scenario: Scenario;
  contender: ContenderSpec;
  windowStart: number;
  windowMs: number;
  limitPerSec: number;
  /** Contended cells: who held when; the sections in the window are counted from these. */
  records?: SectionRecord[];
  /** Uncontended cells: every cycle is in the window. */
  sectionsInWindow?: number;
  waitsMs: number[];
  /** acquire+release cycles, drain included */
  cycles: number;
  clientCommands: Record<string, number>;
  server: ServerSnapshot;
  /** Commands the harness itself sent during the cell, by name (INFO, INCR/DECR probes). */
  bookkeeping: Record<string, number>;
  overlaps: number;
  failures: number;
  censored: number;
  measureHandoff: boolean;
}

export function summarise(i: CellInputs): CellResult {
  const windowEnd = i.windowStart + i.windowMs;
  const inWindow = (i.records ?? []).filter((r) => r.acquiredAt >= i.windowStart && r.acquiredAt < windowEnd);
  const sections = i.sectionsInWindow ?? inWindow.length;
  const perSec = sections / (i.windowMs / 1000);
  const serverCommands = subtract(i.server.calls, i.bookkeeping);
  const bookkept = Object.values(i.bookkeeping).reduce((a, b) => a + b, 0);
  const clientTotal = Object.values(i.clientCommands).reduce((a, b) => a + b, 0);
  const cycles = Math.max(1, i.cycles);
  return {
    scenario: i.scenario,
    contender: i.contender,
    windowMs: i.windowMs,
    sections,
    perSec,
    limitPerSec: i.limitPerSec,
    fractionOfLimit: perSec / i.limitPerSec,
    waitP50Ms: percentile(i.waitsMs, 50),
    waitP99Ms: percentile(i.waitsMs, 99),
    waitMaxMs: percentile(i.waitsMs, 100),
    handoffShare: i.measureHandoff ? handoffShare(inWindow) : null,
    gapP50Ms: i.measureHandoff ? percentile(handoffGaps(inWindow), 50) : null,
    gapP99Ms: i.measureHandoff ? percentile(handoffGaps(inWindow), 99) : null,
    holdMeanMs: inWindow.length ? inWindow.reduce((s, r) => s + r.releasedAt - r.acquiredAt, 0) / inWindow.length : null,
    clientCommandsPerSection: clientTotal / cycles,
    serverCommandsPerSection: (i.server.totalCommands - bookkept) / cycles,
    clientCommands: i.clientCommands,
    serverCommands,
    overlaps: i.overlaps,
    failures: i.failures,
    censored: i.censored,
  };
}

function subtract(calls: Record<string, number>, minus: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, n] of Object.entries(calls)) {
    const left = n - (minus[name] ?? 0);
    if (left > 0) out[name] = left;
  }
  return out;
}

/** (a)'s raw fenced floor and its second instance, the A/A control, in the order they were run. */
export function fencedFloors(cells: CellResult[]): { floor?: CellResult; control?: CellResult } {
  const [floor, control] = cells.filter((c) => c.scenario === 'a' && c.contender.kind === 'rawFenced');
  return { floor, control };
}
