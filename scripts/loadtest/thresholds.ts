// `--fail-on 'p99>500ms,oversell>0'`: conditions on a run's summary that, when one holds, fail
// the run (exit code THRESHOLD_EXIT), as k6's thresholds do. A small, fixed set of metrics and
// operators, so an expression means one thing and a typo is an error, never a silent pass.
import type { LoadTestResult } from './types';

/** Exit code of a run whose invariants held but a --fail-on condition held too. */
export const THRESHOLD_EXIT = 3;

type Unit = 'ms' | 'count' | 'per-second';

interface Metric {
  unit: Unit;
  describe: string;
  read: (result: LoadTestResult) => number | undefined;
}

/** The metrics an expression may name (documented in docs/LOADTEST.md, "Thresholds"). */
export const METRICS: Record<string, Metric> = {
  p50: { unit: 'ms', describe: 'median latency', read: (r) => r.latency.p50 },
  p90: { unit: 'ms', describe: '90th percentile latency', read: (r) => r.latency.p90 },
  p99: { unit: 'ms', describe: '99th percentile latency', read: (r) => r.latency.p99 },
  max: { unit: 'ms', describe: 'slowest answer', read: (r) => r.latency.max },
  oversell: { unit: 'count', describe: 'units sold beyond the stock', read: (r) => r.oversoldUnits },
  errors: {
    unit: 'count',
    describe: 'requests with no HTTP answer',
    read: (r) => Object.values(r.errors).reduce((sum, n) => sum + n, 0),
  },
  unresolved: {
    unit: 'count',
    describe: 'attempts left without a definite answer',
    read: (r) =>
      Object.entries(r.attemptOutcomes)
        .filter(([key]) => /^(error|503|429)\b|^202 PENDING/.test(key))
        .reduce((sum, [, n]) => sum + n, 0),
  },
  purchases_per_s: { unit: 'per-second', describe: 'orders created per second', read: (r) => r.purchasesPerSecond },
};

const OPERATORS = {
  '>=': (a: number, b: number) => a >= b,
  '<=': (a: number, b: number) => a <= b,
  '>': (a: number, b: number) => a > b,
  '<': (a: number, b: number) => a < b,
  '==': (a: number, b: number) => a === b,
} as const;
type Operator = keyof typeof OPERATORS;

export interface Threshold {
  expression: string;
  metric: string;
  operator: Operator;
  /** In the metric's unit: ms for latencies. */
  limit: number;
}

export interface ThresholdOutcome extends Threshold {
  /** The run's figure, or null when the run did not measure it (which fails the condition). */
  value: number | null;
  crossed: boolean;
}

/** Parses `metric op value[,...]`, e.g. `p99>500ms,oversell>0`; throws naming what is wrong. */
export function parseThresholds(text: string): Threshold[] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.some((part) => part === '')) throw new Error(`--fail-on: an empty condition in "${text}"`);
  return parts.map(parseOne);
}

function parseOne(expression: string): Threshold {
  const match = /^([a-z0-9_]+)\s*(>=|<=|==|>|<)\s*(.+)$/.exec(expression);
  if (!match)
    throw new Error(
      `--fail-on: "${expression}" is not metric<op>value (operators: ${Object.keys(OPERATORS).join(' ')}; e.g. p99>500ms)`,
    );
  const [, metric, operator, raw] = match;
  const definition = METRICS[metric];
  if (!definition)
    throw new Error(
      `--fail-on: unknown metric "${metric}" in "${expression}"; one of ${Object.keys(METRICS).join(', ')}`,
    );
  return {
    expression,
    metric,
    operator: operator as Operator,
    limit: parseValue(raw.trim(), definition.unit, expression),
  };
}

function parseValue(raw: string, unit: Unit, expression: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(raw);
  if (!match) throw new Error(`--fail-on: "${raw}" in "${expression}" is not a number (a duration may end in ms or s)`);
  const [, digits, suffix] = match;
  if (suffix && unit !== 'ms')
    throw new Error(`--fail-on: "${expression}" gives a duration to a metric that is not one`);
  if (unit === 'ms' && !suffix) throw new Error(`--fail-on: "${expression}" needs a unit, ms or s (p99>500ms)`);
  return Number(digits) * (suffix === 's' ? 1000 : 1);
}

/** Judges each condition against a run: crossed when it holds, or when the run lacks the figure. */
export function evaluateThresholds(thresholds: Threshold[], result: LoadTestResult): ThresholdOutcome[] {
  return thresholds.map((threshold) => {
    const value = METRICS[threshold.metric].read(result);
    const measured = value !== undefined && Number.isFinite(value);
    return {
      ...threshold,
      value: measured ? value : null,
      crossed: !measured || OPERATORS[threshold.operator](value, threshold.limit),
    };
  });
}

/** The exit code: invariants first (1), then thresholds (THRESHOLD_EXIT), else 0. */
export function exitCodeOf(result: Pick<LoadTestResult, 'ok'>, outcomes: ThresholdOutcome[]): number {
  if (!result.ok) return 1;
  return outcomes.some((outcome) => outcome.crossed) ? THRESHOLD_EXIT : 0;
}

export function formatThresholds(outcomes: ThresholdOutcome[]): string {
  if (!outcomes.length) return '';
  const lines = outcomes.map((o) => {
    const unit = METRICS[o.metric].unit === 'ms' ? ' ms' : '';
    const value = o.value === null ? 'not measured' : `${Math.round(o.value * 100) / 100}${unit}`;
    return `  ${o.crossed ? 'FAIL' : 'ok  '} ${o.expression} (${value})`;
  });
  return ['thresholds (--fail-on: a condition that holds fails the run):', ...lines].join('\n');
}
