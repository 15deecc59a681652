/** Nearest-rank percentile of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** One critical section: who held the lock, when it got it and when it began releasing (machine monotonic ms, sub-µs precision). */
export interface SectionRecord {
  holder: string;
  acquiredAt: number;
  releasedAt: number;
}

/**
 * Share of consecutive sections whose holder differs from the previous one: how often the lock
 * went to a waiter rather than back to the worker that just released it.
 */
export function handoffShare(records: readonly SectionRecord[]): number {
  const ordered = [...records].sort((a, b) => a.acquiredAt - b.acquiredAt);
  if (ordered.length < 2) return Number.NaN;
  let handoffs = 0;
  for (let i = 1; i < ordered.length; i++) if (ordered[i].holder !== ordered[i - 1].holder) handoffs++;
  return handoffs / (ordered.length - 1);
}

/**
 * Idle time between holders: from one holder starting its release to the next holding the
 * lock. The limit assumes this is one round trip.
 */
export function handoffGaps(records: readonly SectionRecord[]): number[] {
  const ordered = [...records].sort((a, b) => a.acquiredAt - b.acquiredAt);
  return ordered.slice(1).map((r, i) => r.acquiredAt - ordered[i].releasedAt);
}

// Process clocks (machineNow: the one monotonic clock) agree to microseconds; a real overlap
// lasts a whole section (1 ms), so this slack cannot hide one.
const CLOCK_SLACK_MS = 0.05;

/**
 * Sections that began before an earlier one had begun its release, from the merged records of
 * every process. Checked after the run, so the check costs the critical section nothing.
 */
export function countOverlaps(records: readonly SectionRecord[]): number {
  const ordered = [...records].sort((a, b) => a.acquiredAt - b.acquiredAt);
  let busyUntil = Number.NEGATIVE_INFINITY;
  let overlaps = 0;
  for (const r of ordered) {
    if (r.acquiredAt < busyUntil - CLOCK_SLACK_MS) overlaps++;
    busyUntil = Math.max(busyUntil, r.releasedAt);
  }
  return overlaps;
}

/**
 * Milliseconds on the machine's monotonic clock (CLOCK_MONOTONIC, one clock for every process),
 * with sub-microsecond precision. Not `performance.timeOrigin + now()`: each process fixes its
 * timeOrigin from the wall clock when it starts, and this VM's wall clock is slewed by
 * milliseconds against the monotonic one, which showed up as hundreds of false overlaps.
 */
export function machineNow(): number {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
}
