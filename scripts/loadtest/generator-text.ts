import type { GeneratorReport } from './generator-report';

const ms = (value: number): string => `${value.toFixed(3)} ms`;
const pct = (share: number): string => `${(share * 100).toFixed(0)} %`;

/** "generator 0.041 ms CPU a request, server 0.180 ms (0.23x)", or the generator's alone. */
export function generatorCostText(g: GeneratorReport): string {
  const own = `${ms(g.cpuPerRequestMs)} CPU a purchase request (${g.cpuS.toFixed(2)} s over ${g.workers} worker thread${g.workers === 1 ? '' : 's'})`;
  if (!g.server) return `${own}; servers' CPU not read (their /metrics did not answer: --metrics-url)`;
  const ratio =
    g.server.cpuPerRequestMs > 0 ? ` (${(g.cpuPerRequestMs / g.server.cpuPerRequestMs).toFixed(2)}x the servers')` : '';
  return `${own}; servers ${ms(g.server.cpuPerRequestMs)} (${g.server.cpuS.toFixed(2)} s)${ratio}`;
}

/** One line per worker thread: its CPU a request, its share of a core, its event loop's lag. */
export function workerRows(g: GeneratorReport): [string, string][] {
  return g.perWorker.map((w) => [
    `worker ${w.worker}`,
    `${w.requests} requests, ${ms(w.cpuPerRequestMs)} CPU each, ${pct(w.cpuShare)} of a core; event-loop lag p99 ${w.lagP99Ms.toFixed(1)} ms, max ${w.lagMaxMs.toFixed(1)} ms`,
  ]);
}

/** The rule, in words. */
export function saturationRuleText(g: GeneratorReport): string {
  return `a worker thread at >= ${pct(g.rule.cpuShare)} of a core, or its event-loop lag p99 >= ${g.rule.lagP99Ms} ms, in that second`;
}

/** The warning when the generator, not the server, was the limit; undefined when it never was. */
export function saturationBanner(g: GeneratorReport, runSeconds: number): string | undefined {
  const n = g.saturatedSeconds.length;
  if (!n) return undefined;
  return `The load generator was saturated in ${n} of ${Math.max(n, runSeconds)} s (${saturationRuleText(g)}): there the rates and latencies are the generator's limit, not the server's. Give it more cores (--workers) or machines.`;
}
