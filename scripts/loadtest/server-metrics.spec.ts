import { admissionDelta, histogramQuantileMs, parseAdmission } from './server-metrics';

const exposition = (refusedEstimate: number, waits: number[], misses: number): string =>
  [
    '# HELP purchase_refused_total Purchases answered 503 OVERLOADED, by reason',
    '# TYPE purchase_refused_total counter',
    `purchase_refused_total{reason="wait_estimate"} ${refusedEstimate}`,
    'purchase_refused_total{reason="expired"} 2',
    `purchase_queue_wait_seconds_bucket{le="0.01"} ${waits[0]}`,
    `purchase_queue_wait_seconds_bucket{le="0.1"} ${waits[1]}`,
    `purchase_queue_wait_seconds_bucket{le="1"} ${waits[2]}`,
    `purchase_queue_wait_seconds_bucket{le="+Inf"} ${waits[2]}`,
    `purchase_deadline_misses_total ${misses}`,
    'purchases_total{outcome="created"} 99',
  ].join('\n');

describe('server admission metrics in the load-test report', () => {
  it('gives the run its own refusals by reason, queue wait and deadline misses (after minus before)', () => {
    const before = parseAdmission(exposition(5, [10, 10, 10], 0));
    const after = parseAdmission(exposition(45, [10, 60, 110], 1));
    const figures = admissionDelta(before, after);
    expect(figures.refusedByReason).toEqual({ wait_estimate: 40 });
    expect(figures.deadlineMisses).toBe(1);
    expect(figures.queueWait.count).toBe(100);
    // 100 waits this run: 50 in (10 ms, 100 ms], 50 in (100 ms, 1 s]
    expect(figures.queueWait.p50Ms).toBeCloseTo(100, 5);
    expect(figures.queueWait.p99Ms).toBeCloseTo(982, 0);
  });

  it('sums the expositions of several instances', () => {
    const sum = parseAdmission(exposition(1, [1, 1, 1], 0));
    parseAdmission(exposition(2, [1, 1, 1], 3), sum);
    expect(sum.refusedByReason).toEqual({ wait_estimate: 3, expired: 4 });
    expect(sum.deadlineMisses).toBe(3);
  });

  it('has no quantile for an empty histogram', () => {
    expect(histogramQuantileMs(0.5, [[Infinity, 0]])).toBeNull();
  });
});
