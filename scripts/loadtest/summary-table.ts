import { generatorCostText, saturationBanner, workerRows } from './generator-text';
import { PlainPopulationFigures, PlainPopulationsReport } from './plain-populations';
import { PopulationFigures, PopulationsReport } from './populations';
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

const pct = (share: number): string => `${(share * 100).toFixed(1)} %`;
const orNone = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

/** "2000 accounts on 2000 addresses: 950 units (0.475 a account, 95.0 % of the stock)". */
export function populationLine(f: PopulationFigures): string {
  return `${f.accounts} accounts on ${f.addresses} addresses: ${f.units} units (${f.unitsPerAccount.toFixed(3)} an account, ${pct(f.share)} of the stock), ${f.tickets} tickets`;
}

/** How the run's client addresses were made, and what that asks of the target. */
export function addressingText(p: Pick<PopulationsReport, 'addressing'>): string {
  return p.addressing === 'loopback-source'
    ? 'each person and bot address its own loopback source address (127.0.x.y people, 127.1.x.y bots)'
    : 'synthetic X-Forwarded-For (10.0.x.y people, 10.1.x.y bots): the target must trust the proxy (TRUST_PROXY), else every client is one address';
}

export function solveText(f: PopulationFigures): string {
  const s = f.solve;
  return s.solves
    ? `${s.solves} solves, ${s.cpuS.toFixed(2)} client CPU s, p95 ${s.solveP95Ms?.toFixed(0)} ms a solve (+${s.queueP95Ms?.toFixed(0)} ms p95 waiting for a solver thread)`
    : 'none';
}

/** People against the bot operator: what each won, from the run's own 201s. */
function populationsSection(r: LoadTestResult): string[] {
  const p = r.populations;
  if (!p) return [];
  if ('flow' in p) return plainPopulationsSection(p);
  const p95 = p.people.joinToAdmissionP95Ms;
  return [
    `Populations (units from the run's own 201s, of a stock of ${p.stock}):`,
    table([
      ['people', populationLine(p.people)],
      ['bots', p.bots.accounts ? populationLine(p.bots) : 'none'],
      ['bot share', pct(p.botShare)],
      [
        'bot / person units per account',
        p.botToPersonPerAccount === null
          ? 'n/a (no bots, or people won nothing)'
          : `${p.botToPersonPerAccount.toFixed(2)}x`,
      ],
      [
        'people join → admission',
        `p95 ${p95 === null ? 'n/a' : sec(p95)} (from arrival: p95 ${p.people.arrivalToAdmissionP95Ms === null ? 'n/a' : sec(p.people.arrivalToAdmissionP95Ms)})`,
      ],
      ['joins refused', `people: ${orNone(p.people.joinsRefused)}; bots: ${orNone(p.bots.joinsRefused)}`],
      [
        'join attempts answered 429',
        `people: ${p.people.joinsRateLimited}; bots: ${p.bots.joinsRateLimited} (each sent again after its Retry-After)`,
      ],
      ['join work', `people: ${solveText(p.people)}; bots: ${solveText(p.bots)}; ${p.solverThreads} solver thread(s)`],
      [
        'polls',
        `${p.bots.accounts ? `bots ${p.bots.polls} (${p.bots.pollsRateLimited} answered 429), ${p.bots.pollsPerTicketSecond.toFixed(1)}/s a ticket (aiming at ${p.botPollsPerSecond}/s); ` : ''}people ${p.people.polls}, ${p.people.pollsPerTicketSecond.toFixed(1)}/s a ticket`,
      ],
      ['reaction', `${p.reactionMs.minMs}–${p.reactionMs.maxMs} ms`],
      ['addresses', addressingText(p)],
    ]),
  ];
}

/** "400 accounts on 10 addresses: 400 units (1.000 an account, 40.0 % of the stock), 400 at the limit". */
export function plainPopulationLine(f: PlainPopulationFigures): string {
  return `${f.accounts} accounts on ${f.addresses} addresses: ${f.units} units (${f.unitsPerAccount.toFixed(3)} an account, ${pct(f.share)} of the stock), ${f.atLimit} at the limit`;
}

/** Each population's purchase requests: sent, refused by code, and sent (and refused) before their Retry-After. */
export function plainRequestRows(p: PlainPopulationsReport): [string, string][] {
  const per = (f: PlainPopulationFigures) => `${f.requests} (${f.requestsPerAccount.toFixed(1)} an account)`;
  const early = (f: PlainPopulationFigures) =>
    `${f.sentBeforeRetryAfter} sent, ${f.refusedBeforeRetryAfter} refused as early`;
  return [
    ['requests', `people ${per(p.people)}; bots ${per(p.bots)}`],
    ['refused', `people: ${orNone(p.people.refused)}; bots: ${orNone(p.bots.refused)}`],
    ['before Retry-After', `people: ${early(p.people)}; bots: ${early(p.bots)}`],
    [
      'retries',
      `people after each Retry-After, ${p.personMaxRetries} a purchase; bots every ${p.botResendMs} ms, Retry-After ignored, up to ${p.botSendsPerPurchase} sends a purchase`,
    ],
  ];
}

/** People against the bot operator without a waiting room: units won, and what each sent and was refused. */
function plainPopulationsSection(p: PlainPopulationsReport): string[] {
  return [
    `Populations, no waiting room (units from the run's own 201s, of a stock of ${p.stock}; each account buys up to the per-user limit, ${p.perUserLimit}):`,
    table([
      ['people', plainPopulationLine(p.people)],
      ['bots', p.bots.accounts ? plainPopulationLine(p.bots) : 'none'],
      ['bot share', pct(p.botShare)],
      [
        'bot / person units per account',
        p.botToPersonPerAccount === null
          ? 'n/a (no bots, or people won nothing)'
          : `${p.botToPersonPerAccount.toFixed(2)}x`,
      ],
      ...plainRequestRows(p),
      ['addresses', addressingText(p)],
    ]),
  ];
}

/**
 * A sale over sooner than this measured its start, not a steady rate: a fresh instance's first
 * seconds compile the purchase path, open its pools and teach the batchers their service time.
 */
export const SHORT_SALE_S = 5;

/** The sale's own pace: "after 1.05 s (1000 orders, 952/s)", or that it never sold out. */
export function sellOutText(r: LoadTestResult): string {
  const s = r.sellOut;
  if (!s) return 'no SOLD_OUT answer in the run';
  const pace = `after ${s.afterS.toFixed(2)} s (${s.orders} orders by then, ${s.perSecond.toFixed(0)}/s)`;
  return s.afterS < SHORT_SALE_S
    ? `${pace}; a sale over in under ${SHORT_SALE_S} s shows the instances' warm-up, not their steady rate (npm run bench measures that)`
    : pace;
}

/** The generator's own cost, per worker thread, and a warning when it, not the server, was the limit. */
function generatorSection(r: LoadTestResult): string[] {
  const g = r.generator;
  if (!g) return [];
  const banner = saturationBanner(g, r.timeline.length);
  return [
    'Load generator:',
    table([['CPU', generatorCostText(g)], ...workerRows(g)]),
    ...(banner ? [`WARNING: ${banner}`] : []),
  ];
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
    ...generatorSection(r),
    ...waitingRoomSection(r),
    ...populationsSection(r),
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
