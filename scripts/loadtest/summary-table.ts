import { LoadTestResult } from './types';

const table = (rows: [string, string][]): string => {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n');
};

const ms = (value: number): string => `${value.toFixed(1)} ms`;
const sorted = (counts: Record<string, number>): [string, string][] =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => [key, String(count)]);

const optionalMs = (value: number | null): string => (value === null ? 'n/a' : ms(value));

/** The servers' side of refusals: why they refused, and how long admitted purchases queued. */
function admissionSection(r: LoadTestResult): string[] {
  if (!r.admission) return ['Server admission queue: /metrics not readable, figures left out'];
  const a = r.admission;
  const refused = Object.keys(a.refusedByReason).length ? table(sorted(a.refusedByReason)) : '  none';
  return [
    'Refused OVERLOADED by reason (server):',
    refused,
    'Server admission queue:',
    table([
      [
        'queue wait',
        `p50 ${optionalMs(a.queueWait.p50Ms)}  p99 ${optionalMs(a.queueWait.p99Ms)} (${a.queueWait.count} purchases)`,
      ],
      ['deadline misses', String(a.deadlineMisses)],
    ]),
  ];
}

const sec = (value: number): string => `${(value / 1000).toFixed(2)} s`;

/** The waiting-room flow's figures, when it ran. */
function waitingRoomSection(r: LoadTestResult): string[] {
  const w = r.waitingRoom;
  if (!w) return [];
  return [
    `Waiting room (${w.buyers} buyers):`,
    table([
      [
        'ended',
        Object.entries(w.finals)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
      ],
      [
        'join → admission',
        `p50 ${sec(w.joinToAdmissionMs.p50)}  p99 ${sec(w.joinToAdmissionMs.p99)}  max ${sec(w.joinToAdmissionMs.max)}`,
      ],
      [
        'admission → purchase',
        `p50 ${sec(w.admissionToPurchaseMs.p50)}  p99 ${sec(w.admissionToPurchaseMs.p99)}  max ${sec(w.admissionToPurchaseMs.max)}`,
      ],
      ['inversions', `${w.order.inversions} over ${w.order.compared} tickets`],
      [
        'sold-out reach',
        `p50 ${sec(w.soldOut.reachMs.p50)}  p99 ${sec(w.soldOut.reachMs.p99)} (${w.soldOut.pollers} pollers), ${w.soldOut.staleAnswers} stale answers`,
      ],
    ]),
  ];
}

/** The sale's own pace: "after 1.05 s (1000 orders, 952/s)", or that it never sold out. */
export function sellOutText(r: LoadTestResult): string {
  const s = r.sellOut;
  return s
    ? `after ${s.afterS.toFixed(2)} s (${s.orders} orders by then, ${s.perSecond.toFixed(0)}/s)`
    : 'no SOLD_OUT answer in the run';
}

/** The end-of-run text: what was sent, what came back, how fast, and the invariant verdict. */
export function formatSummary(r: LoadTestResult): string {
  const sections = [
    `Load test ${r.runId}: product ${r.product.id} (${r.product.createdByRun ? 'created' : 'existing'}), ${r.urls.length} URL(s), ${r.config.users} users, ${r.config.connections} connections`,
    table([
      ['duration', `${r.elapsedS.toFixed(1)} s`],
      ['attempts', String(r.attempts)],
      ['requests', `${r.requests} (${r.retries} retries), ${r.requestsPerSecond.toFixed(0)} req/s`],
      ['purchases', `${r.purchases} (${r.purchasesPerSecond.toFixed(1)}/s over the run)`],
      ['sold out', sellOutText(r)],
      ['stock', `${r.product.initialStock} → ${r.product.finalStock}`],
      [
        'latency',
        `p50 ${ms(r.latency.p50)}  p90 ${ms(r.latency.p90)}  p99 ${ms(r.latency.p99)}  max ${ms(r.latency.max)}`,
      ],
    ]),
    'Responses by status:',
    table(sorted(r.byStatus)),
    'Responses by code:',
    table(sorted(r.byCode)),
    'Attempts by final outcome:',
    table(sorted(r.attemptOutcomes)),
    ...admissionSection(r),
    ...waitingRoomSection(r),
    'Transport errors:',
    Object.keys(r.errors).length ? table(sorted(r.errors)) : '  none',
    'Invariants:',
    table(
      r.invariants.map((i) => [i.name, `${i.ok ? 'PASS' : i.severity === 'error' ? 'FAIL' : 'WARN'}  ${i.detail}`]),
    ),
    r.ok ? 'VERDICT: all invariants hold' : 'VERDICT: INVARIANT VIOLATED',
  ];
  if (r.reportPaths) sections.push(`Report: ${r.reportPaths.html}`);
  return sections.join('\n');
}
