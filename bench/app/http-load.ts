import autocannon from 'autocannon';

export interface LoadSpec {
  urls: string[];
  path: string;
  method: 'GET' | 'POST';
  body?: string;
  connections: number;
  seconds: number;
  /** Authorization headers, used round-robin per request (many users). */
  tokens?: string[];
}

export interface LoadResult {
  requests: number;
  byStatus: Record<string, number>;
  perSecond: number;
  /** How long the load ran. */
  seconds: number;
  ok2xx: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
}

/**
 * autocannon (the fastest generator on npm, ~0.16 ms CPU per request here), one instance per
 * URL with the connections split between them, all in this process.
 */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const perUrl = Math.max(1, Math.floor(spec.connections / spec.urls.length));
  let next = 0;
  const runs = spec.urls.map((url) =>
    autocannon({
      url: `${url}${spec.path}`,
      method: spec.method,
      connections: perUrl,
      duration: spec.seconds,
      headers: { 'content-type': 'application/json' },
      body: spec.body,
      requests: spec.tokens
        ? [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${spec.tokens![next++ % spec.tokens!.length]}` } }) }]
        : undefined,
    }),
  );
  const results = await Promise.all(runs);
  const byStatus: Record<string, number> = {};
  for (const result of results) {
    for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) byStatus[code] = (byStatus[code] ?? 0) + (stat as { count: number }).count;
  }
  const requests = results.reduce((sum, r) => sum + r.requests.total, 0);
  const seconds = Math.max(...results.map((r) => r.duration));
  return {
    requests,
    byStatus,
    perSecond: requests / seconds,
    seconds,
    ok2xx: results.reduce((sum, r) => sum + r['2xx'], 0),
    // With one generator per URL, report the worse instance's percentiles.
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    max: Math.max(...results.map((r) => r.latency.max)),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
  };
}

/**
 * One result from several slices of the same load (requests and statuses summed, the rate over
 * their total time); latencies are the worst slice's, so a merge never flatters them.
 */
export function mergeLoads(slices: LoadResult[]): LoadResult {
  if (slices.length === 0) throw new Error('nothing to merge');
  const byStatus: Record<string, number> = {};
  for (const slice of slices) for (const [code, count] of Object.entries(slice.byStatus)) byStatus[code] = (byStatus[code] ?? 0) + count;
  const requests = slices.reduce((sum, s) => sum + s.requests, 0);
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  return {
    requests,
    byStatus,
    perSecond: seconds > 0 ? requests / seconds : 0,
    seconds,
    ok2xx: slices.reduce((sum, s) => sum + s.ok2xx, 0),
    p50: Math.max(...slices.map((s) => s.p50)),
    p99: Math.max(...slices.map((s) => s.p99)),
    max: Math.max(...slices.map((s) => s.max)),
    errors: slices.reduce((sum, s) => sum + s.errors, 0),
  };
}
