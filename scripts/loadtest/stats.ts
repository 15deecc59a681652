import { HistogramBucket, LatencySummary } from './types';

/** Nearest-rank percentile of an ascending array (p in 0..100); 0 for an empty one. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function summarizeLatency(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  if (sorted.length === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count: sorted.length,
    min: sorted[0],
    mean: sum / sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
  };
}

/**
 * Buckets on a 1-2-5 scale (1, 2, 5, 10, 20, 50 ms...) so that fast and slow tails both stay
 * visible on one chart; empty buckets beyond the largest sample are dropped.
 */
export function latencyHistogram(samples: ArrayLike<number>): HistogramBucket[] {
  const edges = [0];
  for (let decade = 1; edges[edges.length - 1] < 600_000; decade *= 10) edges.push(decade, 2 * decade, 5 * decade);
  const buckets: HistogramBucket[] = edges.map((fromMs, i) => ({ fromMs, toMs: edges[i + 1] ?? Infinity, count: 0 }));
  for (let i = 0; i < samples.length; i++) {
    const value = samples[i];
    let index = buckets.findIndex((bucket) => value < bucket.toMs);
    if (index < 0) index = buckets.length - 1;
    buckets[index].count++;
  }
  let last = buckets.length - 1;
  while (last > 0 && buckets[last].count === 0) last--;
  let first = 0;
  while (first < last && buckets[first].count === 0) first++;
  return buckets.slice(first, last + 1);
}

/** Rate over an elapsed time, 0 when nothing elapsed. */
export const perSecond = (count: number, elapsedS: number): number => (elapsedS > 0 ? count / elapsedS : 0);

export function increment(counts: Record<string, number>, key: string, by = 1): void {
  counts[key] = (counts[key] ?? 0) + by;
}
