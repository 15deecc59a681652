import { evaluateThresholds, exitCodeOf, formatThresholds, parseThresholds, THRESHOLD_EXIT } from './thresholds';
import type { LoadTestResult } from './types';

/** The fields the metrics read; the rest of a result plays no part in a threshold. */
function result(overrides: Partial<LoadTestResult> = {}): LoadTestResult {
  return {
    ok: true,
    latency: { count: 10, min: 1, mean: 50, p50: 40, p90: 300, p99: 520, max: 900 },
    oversoldUnits: 0,
    errors: { ECONNRESET: 2, TIMEOUT: 1 },
    attemptOutcomes: { '201': 5, '409 SOLD_OUT': 3, '503 OVERLOADED': 1, error: 1, '202 PENDING': 1 },
    purchasesPerSecond: 120,
    ...overrides,
  } as LoadTestResult;
}

describe('--fail-on thresholds', () => {
  it('parses metric, operator and value, durations in ms or s', () => {
    expect(parseThresholds('p99>500ms, oversell>0,max>=1.5s,purchases_per_s<100,errors==0')).toEqual([
      { expression: 'p99>500ms', metric: 'p99', operator: '>', limit: 500 },
      { expression: 'oversell>0', metric: 'oversell', operator: '>', limit: 0 },
      { expression: 'max>=1.5s', metric: 'max', operator: '>=', limit: 1500 },
      { expression: 'purchases_per_s<100', metric: 'purchases_per_s', operator: '<', limit: 100 },
      { expression: 'errors==0', metric: 'errors', operator: '==', limit: 0 },
    ]);
  });

  it.each([
    ['p95>1s', /unknown metric "p95".*one of p50, p90, p99, max, oversell/],
    ['p99=>1s', /is not metric<op>value/],
    ['p99 500ms', /is not metric<op>value/],
    ['p99>500', /needs a unit, ms or s/],
    ['oversell>1ms', /gives a duration to a metric that is not one/],
    ['p99>fast', /"fast" .* is not a number/],
    ['p99>1s,,oversell>0', /an empty condition/],
    ['', /an empty condition/],
  ])('refuses %j with a message naming what is wrong', (text, message) => {
    expect(() => parseThresholds(text)).toThrow(message);
  });

  it('crosses a condition that holds on the run, and only that one', () => {
    const outcomes = evaluateThresholds(
      parseThresholds('p99>500ms,p99>520ms,oversell>0,errors>=3,unresolved>2,purchases_per_s<100'),
      result(),
    );
    expect(outcomes.map((o) => [o.expression, o.value, o.crossed])).toEqual([
      ['p99>500ms', 520, true],
      ['p99>520ms', 520, false],
      ['oversell>0', 0, false],
      ['errors>=3', 3, true],
      ['unresolved>2', 3, true],
      ['purchases_per_s<100', 120, false],
    ]);
    expect(formatThresholds(outcomes)).toContain('FAIL p99>500ms (520 ms)');
  });

  it('fails a condition whose figure the run did not measure', () => {
    const [outcome] = evaluateThresholds(parseThresholds('oversell>0'), result({ oversoldUnits: undefined }));
    expect(outcome).toMatchObject({ value: null, crossed: true });
    expect(formatThresholds([outcome])).toContain('FAIL oversell>0 (not measured)');
  });

  it('sets the exit code: invariants first, then thresholds, else 0', () => {
    const crossed = evaluateThresholds(parseThresholds('p99>500ms'), result());
    const held = evaluateThresholds(parseThresholds('p99>1s'), result());
    expect(exitCodeOf({ ok: true }, [])).toBe(0);
    expect(exitCodeOf({ ok: true }, held)).toBe(0);
    expect(exitCodeOf({ ok: true }, crossed)).toBe(THRESHOLD_EXIT);
    expect(exitCodeOf({ ok: false }, crossed)).toBe(1);
    expect(exitCodeOf({ ok: false }, held)).toBe(1);
    expect(THRESHOLD_EXIT).not.toBe(2);
  });
});
