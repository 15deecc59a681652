import { LoadResult, mergeLoads } from './http-load';

const slice = (requests: number, seconds: number, p99: number, byStatus: Record<string, number>): LoadResult => ({
  requests,
  byStatus,
  perSecond: requests / seconds,
  seconds,
  ok2xx: byStatus['200'] ?? 0,
  p50: p99 / 4,
  p99,
  max: p99 * 2,
  errors: 0,
});

describe('mergeLoads', () => {
  it('sums requests and statuses, takes the rate over the total time and the worst latencies', () => {
    const merged = mergeLoads([slice(1000, 2, 40, { '200': 1000 }), slice(3000, 3, 90, { '200': 2990, '503': 10 })]);
    expect(merged.requests).toBe(4000);
    expect(merged.byStatus).toEqual({ '200': 3990, '503': 10 });
    expect(merged.perSecond).toBeCloseTo(800);
    expect(merged.ok2xx).toBe(3990);
    expect(merged.p99).toBe(90);
    expect(merged.max).toBe(180);
  });

  it('counts the time of a slice that got no answers', () => {
    expect(mergeLoads([slice(1000, 2, 40, { '200': 1000 }), slice(0, 2, 0, {})]).perSecond).toBeCloseTo(250);
  });

  it('refuses to merge nothing', () => {
    expect(() => mergeLoads([])).toThrow('nothing to merge');
  });
});
