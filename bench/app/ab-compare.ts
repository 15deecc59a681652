import type { CpuCell } from './cpu-cells';
import { median } from '../lock/stats';

/** The two builds an A/B run compares: this checkout, and the build of the `--baseline` commit. */
export type Side = 'current' | 'baseline';

/**
 * The order of the two sides in round `round`: current first in even rounds, baseline first in odd
 * ones (A B, B A, A B, ...), so neither side always runs on the machine the other just warmed.
 */
export function sidesInRound(round: number): [Side, Side] {
  return round % 2 === 0 ? ['current', 'baseline'] : ['baseline', 'current'];
}

/** What one cell of one side measured in one round. */
export interface AbSample {
  apiUsPerAnswer: number;
  /** Postgres CPU per purchase answered 201, in cells that sell. */
  postgresUsPerPurchase?: number;
  peakRssMb?: number;
  /** Purchases answered 201 per second of load, in cells that sell: a spike's goodput. */
  purchasesPerSecond?: number;
  violations: number;
}

export function abSample(cell: CpuCell): AbSample {
  const purchases = cell.load.byStatus['201'] ?? 0;
  return {
    apiUsPerAnswer: cell.perCpuSecond > 0 ? 1e6 / cell.perCpuSecond : NaN,
    postgresUsPerPurchase: purchases > 0 ? (cell.postgresCpuS / purchases) * 1e6 : undefined,
    peakRssMb: cell.peakRssMb,
    purchasesPerSecond: purchases > 0 && cell.load.seconds > 0 ? purchases / cell.load.seconds : undefined,
    violations: cell.violations.length,
  };
}

/** One figure of both sides: each side's median over rounds, and current/baseline. */
export interface Comparison {
  current: number;
  baseline: number;
  /** The median of each round's current/baseline: the two sides of a round ran minutes apart, the rounds further. */
  ratio: number;
  ratioMin: number;
  ratioMax: number;
}

export interface AbRow {
  cell: string;
  rounds: number;
  apiUs: Comparison;
  postgresUs?: Comparison;
  peakRssMb?: Comparison;
  purchasesPerSecond?: Comparison;
  violations: Record<Side, number>;
}

/** Compares one figure over the rounds; undefined when a round lacks it on either side. */
function compare(pairs: Array<Record<Side, AbSample>>, figure: (s: AbSample) => number | undefined): Comparison | undefined {
  const current = pairs.map((p) => figure(p.current));
  const baseline = pairs.map((p) => figure(p.baseline));
  if (pairs.length === 0 || [...current, ...baseline].some((v) => v === undefined || !Number.isFinite(v))) return undefined;
  const ratios = pairs.map((_, i) => current[i]! / baseline[i]!);
  return { current: median(current as number[]), baseline: median(baseline as number[]), ratio: median(ratios), ratioMin: Math.min(...ratios), ratioMax: Math.max(...ratios) };
}

/** Folds a cell's rounds (one current and one baseline sample each) into its row of the table. */
export function compareCell(cell: string, pairs: Array<Record<Side, AbSample>>): AbRow {
  const apiUs = compare(pairs, (s) => s.apiUsPerAnswer);
  if (!apiUs) throw new Error(`cell ${cell}: no API CPU per answer on both sides in every round`);
  const violations = (side: Side) => pairs.reduce((sum, p) => sum + p[side].violations, 0);
  return {
    cell,
    rounds: pairs.length,
    apiUs,
    postgresUs: compare(pairs, (s) => s.postgresUsPerPurchase),
    peakRssMb: compare(pairs, (s) => s.peakRssMb),
    purchasesPerSecond: compare(pairs, (s) => s.purchasesPerSecond),
    violations: { current: violations('current'), baseline: violations('baseline') },
  };
}

const num = (v: number, digits = 0) => v.toFixed(digits);
const ratio = (c: Comparison) => (c.ratioMin === c.ratioMax ? c.ratio.toFixed(2) : `${c.ratio.toFixed(2)} (${c.ratioMin.toFixed(2)}–${c.ratioMax.toFixed(2)})`);
const cells = (c: Comparison | undefined, digits = 0) => (c ? [num(c.current, digits), num(c.baseline, digits), ratio(c)] : ['–', '–', '–']);

/** The comparison as a markdown table (readable as plain text too), for a human to paste where it belongs. */
export function renderAbTable(rows: AbRow[], baselineLabel: string): string {
  const header = `| cell (rounds) | API µs/answer, current | ${baselineLabel} | current/baseline | Postgres µs/purchase, current | ${baselineLabel} | current/baseline | peak RSS MB, current | ${baselineLabel} | 201/s, current | ${baselineLabel} | current/baseline | violations (current / baseline) |`;
  const body = rows.map((r) =>
    ['', `${r.cell} (${r.rounds})`, ...cells(r.apiUs, 1), ...cells(r.postgresUs, 1), ...(r.peakRssMb ? [num(r.peakRssMb.current), num(r.peakRssMb.baseline)] : ['–', '–']), ...cells(r.purchasesPerSecond), `${r.violations.current} / ${r.violations.baseline}`, ''].join(' | ').trim(),
  );
  return [header, '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|', ...body].join('\n');
}
