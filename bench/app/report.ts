import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { LimitResult } from './limit';
import type { ProfileSummary } from './cpu-profile';
import type { HotResult, SoldOutResult } from './scenarios';

export interface AppBenchResult {
  command: string;
  date: string;
  machine: { cpu?: string; cores: number; node: string; loadStart: number; loadEnd: number };
  env: { seconds: number; connections: number; users: number };
  limit: LimitResult;
  hot: HotResult[];
  soldOut: SoldOutResult;
  profile?: ProfileSummary;
}

const START = '<!-- bench:app:start -->';
const END = '<!-- bench:app:end -->';
const DOC = 'docs/BENCHMARKS.md';
const n = (value: number | undefined, digits = 0) => (value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits));
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

function render(r: AppBenchResult): string {
  const [hot1, hot2] = r.hot;
  const ratio1 = hot1.purchasesPerSecond / r.limit.transactionsPerSecond;
  const maxRss = Math.max(...r.hot.flatMap((h) => h.peakRssMb.map((m) => m ?? 0)));
  const violations = [...r.hot.flatMap((h) => h.violations), ...r.soldOut.violations];
  const hotRow = (h: HotResult) =>
    `| hot, ${h.instances} instance(s) | ${n(h.purchasesPerSecond)} purchases/s | ${n(h.purchasesPerSecond / r.limit.transactionsPerSecond, 2)}× limit | ${n(h.load.p50)} / ${n(h.load.p99)} ms | ${h.peakRssMb.map((m) => n(m)).join(', ')} MB | mean batch ${n(h.batchMean, 1)} | ${h.load.errors} |`;
  const profile = r.profile
    ? `Where the time goes (1 instance under the hot load in a separate, shorter run under \`node --cpu-prof\`, ${r.profile.samples} samples, self time):

| area | share |
|---|---:|
${r.profile.byArea.map((a) => `| ${a.area} | ${(a.share * 100).toFixed(1)}% |`).join('\n')}

Top functions: ${r.profile.topFunctions.slice(0, 10).map((f) => `\`${f.name.trim()}\` ${(f.share * 100).toFixed(1)}%`).join(', ')}.`
    : '';
  return `${START}
## Application (npm run bench)

Command: \`${r.command}\` · date: ${r.date}

Machine: ${r.machine.cpu}, ${r.machine.cores} cores, Node ${r.machine.node}; the load generator (autocannon), the API instances, Postgres and a private Redis all share these cores (1-min load ${n(r.machine.loadStart, 2)} at start, ${n(r.machine.loadEnd, 2)} at end). ${r.env.seconds} s per cell, ${r.env.connections} connections, ${r.env.users} users (one JWT each, round-robin). Loads that are compared take turns in slices so that machine drift hits them alike: the limit and hot with 1 instance alternate in 4; sold-out, the bare endpoint and the cheapest POST run once in each of their 6 orders. Merged latencies are the worst slice's.

| cell | throughput | vs limit | p50 / p99 | peak RSS per instance | notes | errors |
|---|---:|---:|---|---|---|---:|
| limit: one connection, \`UPDATE … WHERE stock >= 1\` + \`INSERT\` per transaction, plain SQL | ${n(r.limit.transactionsPerSecond)} tx/s | 1.00× | – | – | the naive design's ceiling | – |
${r.hot.map(hotRow).join('\n')}
| sold-out refusals (409, no Idempotency-Key) | ${n(r.soldOut.soldOut.perSecond)} req/s | – | ${n(r.soldOut.soldOut.p50)} / ${n(r.soldOut.soldOut.p99)} ms | – | ${(r.soldOut.ratio * 100).toFixed(0)}% of the bare endpoint | ${r.soldOut.soldOut.errors} |
| bare endpoint \`GET /health/live\` (same app) | ${n(r.soldOut.bare.perSecond)} req/s | – | ${n(r.soldOut.bare.p50)} / ${n(r.soldOut.bare.p99)} ms | – | the ceiling for sold-out | ${r.soldOut.bare.errors} |
| cheapest POST: unrouted path, same body (404) | ${n(r.soldOut.barePost.perSecond)} req/s | – | ${n(r.soldOut.barePost.p50)} / ${n(r.soldOut.barePost.p99)} ms | – | sold-out is ${((r.soldOut.soldOut.perSecond / r.soldOut.barePost.perSecond) * 100).toFixed(0)}% of it | ${r.soldOut.barePost.errors} |

Goals (issue 7):

| goal | target | measured | verdict |
|---|---|---|---|
| hot, 1 instance vs limit | ≥ 3× (moonshot 5×) | ${n(ratio1, 2)}× | ${verdict(ratio1 >= 3)} |
| sold-out vs bare endpoint | ≥ 70% | ${(r.soldOut.ratio * 100).toFixed(0)}% | ${verdict(r.soldOut.ratio >= 0.7)} |
| peak RSS per instance | ≤ 250 MB | ${n(maxRss)} MB | ${verdict(maxRss <= 250)} |
| invariant violations | 0 | ${violations.length} | ${verdict(violations.length === 0)} |
${hot2 ? `\n2 instances give ${n(hot2.purchasesPerSecond / hot1.purchasesPerSecond, 2)}× one instance's purchases/s: on 2 cores shared with the generator and Postgres, a second instance competes for the same CPU.` : ''}

${profile}
${END}`;
}

/** Replaces this bench's section of docs/BENCHMARKS.md, keeping the others. */
export function writeAppSection(result: AppBenchResult): void {
  const section = render(result);
  const current = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Benchmarks\n';
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + END.length)}`
      : current.replace(/^(# Benchmarks[^\n]*\n)/, `$1\n${section}\n`);
  writeFileSync(DOC, next.includes(START) ? next : `${current}\n${section}\n`);
}
