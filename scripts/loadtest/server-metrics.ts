/**
 * The servers' own view of the run's admission queue, from their Prometheus endpoint read before
 * and after the load: refusals by reason, how long purchases waited for their batch, deadline
 * misses. The client sees only the codes; why a purchase was refused is known to the server.
 */
import { AdmissionReport } from './types';

export interface AdmissionCounters {
  refusedByReason: Record<string, number>;
  /** Cumulative queue-wait histogram: upper bound in seconds → count (Infinity for +Inf). */
  waitBuckets: Map<number, number>;
  deadlineMisses: number;
  /** The processes' CPU so far (process_cpu_seconds_total, user and system); absent when not exposed. */
  cpuSeconds?: number;
}

export type AdmissionFigures = AdmissionReport;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s+(\S+)/;

function label(labels: string | undefined, name: string): string | undefined {
  return labels ? new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(labels)?.[1] : undefined;
}

/** The admission counters in one Prometheus text exposition (several instances' texts may be summed with `add`). */
export function parseAdmission(
  text: string,
  into: AdmissionCounters = { refusedByReason: {}, waitBuckets: new Map(), deadlineMisses: 0 },
): AdmissionCounters {
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const [, name, labels, raw] = match;
    const value = Number(raw);
    if (name === 'purchase_refused_total') {
      const reason = label(labels, 'reason') ?? 'unknown';
      into.refusedByReason[reason] = (into.refusedByReason[reason] ?? 0) + value;
    } else if (name === 'purchase_queue_wait_seconds_bucket') {
      const le = label(labels, 'le');
      const bound = le === '+Inf' ? Infinity : Number(le);
      into.waitBuckets.set(bound, (into.waitBuckets.get(bound) ?? 0) + value);
    } else if (name === 'purchase_deadline_misses_total') into.deadlineMisses += value;
    else if (name === 'process_cpu_seconds_total') into.cpuSeconds = (into.cpuSeconds ?? 0) + value;
  }
  return into;
}

/** A quantile of a cumulative histogram, interpolated inside its bucket as Prometheus does; ms. */
export function histogramQuantileMs(q: number, buckets: [number, number][]): number | null {
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const total = sorted.length ? sorted[sorted.length - 1][1] : 0;
  if (total <= 0) return null;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [bound, count] of sorted) {
    if (count >= rank) {
      if (!Number.isFinite(bound)) return lowerBound * 1000;
      const share = count === lowerCount ? 1 : (rank - lowerCount) / (count - lowerCount);
      return (lowerBound + (bound - lowerBound) * share) * 1000;
    }
    lowerBound = bound;
    lowerCount = count;
  }
  return lowerBound * 1000;
}

/** What happened between two readings. */
export function admissionDelta(before: AdmissionCounters, after: AdmissionCounters): AdmissionFigures {
  const refusedByReason: Record<string, number> = {};
  for (const [reason, count] of Object.entries(after.refusedByReason)) {
    const delta = count - (before.refusedByReason[reason] ?? 0);
    if (delta > 0) refusedByReason[reason] = delta;
  }
  const buckets: [number, number][] = [...after.waitBuckets].map(([bound, count]) => [
    bound,
    count - (before.waitBuckets.get(bound) ?? 0),
  ]);
  const count = buckets.find(([bound]) => !Number.isFinite(bound))?.[1] ?? 0;
  return {
    refusedByReason,
    queueWait: { count, p50Ms: histogramQuantileMs(0.5, buckets), p99Ms: histogramQuantileMs(0.99, buckets) },
    deadlineMisses: after.deadlineMisses - before.deadlineMisses,
  };
}

/** The servers' CPU seconds between two readings; undefined when either did not expose it. */
export function serverCpuDelta(before?: AdmissionCounters, after?: AdmissionCounters): number | undefined {
  if (before?.cpuSeconds === undefined || after?.cpuSeconds === undefined) return undefined;
  return Math.max(0, after.cpuSeconds - before.cpuSeconds);
}

/**
 * Reads every URL's /metrics (each a base URL: an instance's own, or its METRICS_PORT listener's) and
 * sums them; undefined when any cannot be read (metrics are then left out).
 */
export async function readAdmission(urls: string[], timeoutMs = 5000): Promise<AdmissionCounters | undefined> {
  try {
    const texts = await Promise.all(
      urls.map(async (url) => {
        const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
        if (!res.ok) throw new Error(`${url}/metrics answered ${res.status}`);
        return res.text();
      }),
    );
    const sum: AdmissionCounters = { refusedByReason: {}, waitBuckets: new Map(), deadlineMisses: 0 };
    for (const text of texts) parseAdmission(text, sum);
    return sum;
  } catch {
    return undefined;
  }
}
