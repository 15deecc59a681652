import { barList, columnChart, escapeHtml, Series } from './svg-charts';
import { generatorCostText, saturationBanner, saturationRuleText, workerRows } from './generator-text';
import { historyCheckHtml } from './history-check-html';
import { addressingText, plainPopulationLine, plainRequestRows, sellOutText } from './summary-table';
import { PlainPopulationsReport } from './plain-populations';
import { LoadTestResult } from './types';
import { populationsHtml, waitingRoomHtml } from './waiting-room-html';

const STATUS_SERIES: (Series & { match: (status: string) => boolean })[] = [
  { name: '201 created', color: '#2e9e5b', match: (s) => s === '201' },
  { name: '409 conflict', color: '#e0a526', match: (s) => s === '409' },
  { name: '429 rate limited', color: '#8e6bbf', match: (s) => s === '429' },
  { name: '503 unavailable', color: '#d64545', match: (s) => s === '503' },
  { name: 'transport error', color: '#333333', match: (s) => s === 'error' },
  { name: 'other', color: '#8a97a8', match: () => true },
];

const colorOf = (key: string): string => STATUS_SERIES.find((s) => s.match(key.split(' ')[0]))?.color ?? '#8a97a8';

function throughputChart(r: LoadTestResult): string {
  const columns = r.timeline.map((bucket) => {
    const values = STATUS_SERIES.map(() => 0);
    for (const [status, count] of Object.entries(bucket.byStatus))
      values[STATUS_SERIES.findIndex((s) => s.match(status))] += count;
    return { label: `${bucket.second}s`, values };
  });
  const used = STATUS_SERIES.map((_, i) => columns.some((c) => c.values[i] > 0));
  const series = STATUS_SERIES.filter((_, i) => used[i]);
  const trimmed = columns.map((c) => ({ label: c.label, values: c.values.filter((_, i) => used[i]) }));
  const saturated = new Set(r.generator?.saturatedSeconds ?? []);
  const marked = new Set(r.timeline.flatMap((bucket, i) => (saturated.has(bucket.second) ? [i] : [])));
  // The last second is usually cut short by the end of the run; saying so keeps its lower bar honest.
  return columnChart(
    'Throughput: responses per second, by status (the last second may be partial)',
    series,
    trimmed,
    'responses / s',
    { indexes: marked, name: 'load generator saturated', color: '#f3d0d0' },
  );
}

function latencyCharts(r: LoadTestResult): string {
  const l = r.latency;
  const percentiles = columnChart(
    'Latency percentiles (ms)',
    [{ name: 'latency', color: '#3b6fb6' }],
    [
      { label: `p50 ${l.p50.toFixed(1)}`, values: [l.p50] },
      { label: `p90 ${l.p90.toFixed(1)}`, values: [l.p90] },
      { label: `p99 ${l.p99.toFixed(1)}`, values: [l.p99] },
      { label: `max ${l.max.toFixed(1)}`, values: [l.max] },
    ],
    'ms',
  );
  const histogram = columnChart(
    'Latency histogram (responses per bucket, ms)',
    [{ name: 'responses', color: '#3b6fb6' }],
    r.histogram.map((b) => ({ label: `${b.fromMs}–${Number.isFinite(b.toMs) ? b.toMs : '∞'}`, values: [b.count] })),
    'responses',
  );
  return percentiles + histogram;
}

/** The generator's own cost and lag, per worker thread: whether the figures above are the server's. */
function generatorHtml(r: LoadTestResult): string {
  const g = r.generator;
  if (!g) return '';
  const rows: [string, string][] = [
    ['CPU', generatorCostText(g)],
    ...workerRows(g),
    [
      'saturated',
      g.saturatedSeconds.length
        ? `${g.saturatedSeconds.length} s: ${g.saturatedSeconds.map((s) => `${s}s`).join(', ')} (marked on the throughput chart)`
        : 'never',
    ],
  ];
  return `<h2>Load generator</h2><table class="facts" id="generator">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>
<p class="note">Saturated: ${escapeHtml(saturationRuleText(g))}. CPU is the generator process's over the load (every thread), per purchase request sent; the servers' is their process_cpu_seconds_total over the same span.</p>`;
}

function generatorBanner(r: LoadTestResult): string {
  const banner = r.generator && saturationBanner(r.generator, r.timeline.length);
  return banner ? `<div class="verdict warn" id="generator-saturated">${escapeHtml(banner)}</div>` : '';
}

function invariantTable(r: LoadTestResult): string {
  const rows = r.invariants.map((i) => {
    const verdict = i.ok ? 'PASS' : i.severity === 'error' ? 'FAIL' : 'WARN';
    return `<tr class="${verdict.toLowerCase()}"><td>${verdict}</td><td>${escapeHtml(i.name)}</td><td>${escapeHtml(i.detail)}</td></tr>`;
  });
  return `<table class="invariants"><thead><tr><th>verdict</th><th>invariant</th><th>detail</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const optionalMs = (value: number | null): string => (value === null ? 'n/a' : `${value.toFixed(1)} ms`);

function admissionFacts(r: LoadTestResult): [string, string][] {
  const a = r.admission;
  if (!a) return [['server queue', "not read (the targets' /metrics did not answer)"]];
  const refused = Object.entries(a.refusedByReason).sort((x, y) => y[1] - x[1]);
  return [
    ['refused OVERLOADED', refused.length ? refused.map(([reason, n]) => `${reason} ${n}`).join(', ') : 'none'],
    [
      'server queue wait',
      `p50 ${optionalMs(a.queueWait.p50Ms)} · p99 ${optionalMs(a.queueWait.p99Ms)} (${a.queueWait.count} purchases); ${a.deadlineMisses} deadline misses`,
    ],
  ];
}

function facts(r: LoadTestResult): string {
  const rows: [string, string][] = [
    [
      'product',
      `${r.product.id} (${r.product.createdByRun ? 'created by this run' : 'existing'}), per-user limit ${r.product.perUserLimit}`,
    ],
    ['stock', `${r.product.initialStock} → ${r.product.finalStock}`],
    [
      'load',
      `${r.config.users} users, ${r.config.connections} connections, ${r.config.durationS !== undefined ? `${r.config.durationS} s` : `${r.config.requests} attempts`}, quantity ${r.config.quantity}, up to ${r.config.maxRetries} retries`,
    ],
    ['targets', r.urls.join(', ')],
    ['duration', `${r.elapsedS.toFixed(1)} s (${r.startedAt} → ${r.finishedAt})`],
    [
      'attempts / requests',
      `${r.attempts} / ${r.requests} (${r.retries} retries), ${r.requestsPerSecond.toFixed(0)} req/s`,
    ],
    ['purchases', `${r.purchases} (${r.purchasesPerSecond.toFixed(1)}/s over the whole run)`],
    ['time to sell out', sellOutText(r)],
    [
      'latency',
      `p50 ${r.latency.p50.toFixed(1)} · p90 ${r.latency.p90.toFixed(1)} · p99 ${r.latency.p99.toFixed(1)} · max ${r.latency.max.toFixed(1)} ms (${r.latency.count} responses)`,
    ],
    ...admissionFacts(r),
    [
      'transport errors',
      Object.entries(r.errors)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none',
    ],
  ];
  return `<table class="facts">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
}

function refusalBars(r: LoadTestResult): string {
  const entries = Object.entries(r.admission?.refusedByReason ?? {}).sort((a, b) => b[1] - a[1]);
  if (!entries.length) return '';
  return barList(
    "503 OVERLOADED refusals by the server's reason",
    entries.map(([label, value]) => ({ label, value, color: '#d64545' })),
  );
}

/** The report's populations part without a waiting room: units won per account, and what each population sent. */
function plainPopulationsHtml(p: PlainPopulationsReport): string {
  const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
  const rows: [string, string][] = [
    ['people', plainPopulationLine(p.people)],
    ['bots', p.bots.accounts ? plainPopulationLine(p.bots) : 'none'],
    ['bot share of the stock', pct(p.botShare)],
    [
      'units per bot account / per person account',
      p.botToPersonPerAccount === null
        ? 'n/a (no bots, or people won nothing)'
        : `${p.botToPersonPerAccount.toFixed(2)}x`,
    ],
    ...plainRequestRows(p),
    ['client addresses', addressingText(p)],
  ];
  const table = `<table class="facts">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
  const perAccount = barList('Units won per account', [
    { label: `person (${p.people.accounts})`, value: Number(p.people.unitsPerAccount.toFixed(3)), color: '#2e9e5b' },
    { label: `bot (${p.bots.accounts})`, value: Number(p.bots.unitsPerAccount.toFixed(3)), color: '#c0392b' },
  ]);
  const requests = barList('Purchase requests sent per account', [
    { label: 'person', value: Number(p.people.requestsPerAccount.toFixed(1)), color: '#2e9e5b' },
    { label: 'bot', value: Number(p.bots.requestsPerAccount.toFixed(1)), color: '#c0392b' },
  ]);
  return `<h2>People and bots (no waiting room)</h2>${table}${perAccount}${requests}
<p class="note">Each account buys the product up to its per-user limit (${p.perUserLimit}). Units are counted from the orders this run was answered 201 for (its own records), by the account that bought them. People re-send a refused purchase only after its Retry-After; bots re-send it every ${p.botResendMs} ms, Retry-After ignored. "Refused as early" counts the 429s the API said came before the Retry-After it had given.</p>`;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;color:#1d2733;margin:24px auto;max-width:800px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.verdict{padding:10px 14px;border-radius:6px;font-weight:600;margin:12px 0}
.verdict.ok{background:#e3f4ea;color:#1d6b3e}.verdict.bad{background:#fbe4e4;color:#9b1c1c}.verdict.warn{background:#fdf0d5;color:#7a4d00;font-weight:500}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e3e7ed;vertical-align:top}
.facts th{width:160px;color:#5a6675;font-weight:500}
tr.pass td:first-child{color:#1d6b3e;font-weight:600}tr.fail td:first-child{color:#9b1c1c;font-weight:700}tr.warn td:first-child{color:#9a6a00;font-weight:700}
figure.chart{margin:16px 0}figcaption{font-weight:600;margin-bottom:4px}svg{max-width:100%;height:auto;background:#fbfcfd;border:1px solid #e3e7ed}
.grid{stroke:#e3e7ed}.tick{font-size:11px;fill:#5a6675}.axis{font-size:12px;fill:#5a6675}.value{font-size:11px;fill:#1d2733}
.legend{margin-top:4px}.key{margin-right:14px;font-size:12px}.key i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
h3{font-size:15px;margin:20px 0 6px}.note{color:#5a6675;font-size:12px}
footer{margin-top:32px;color:#5a6675;font-size:12px}`;

/** The report as one self-contained page: inline CSS and SVG, no scripts, nothing fetched. */
export function renderReportHtml(r: LoadTestResult): string {
  const outcomeBars = Object.entries(r.byCode)
    .sort((a, b) => b[1] - a[1])
    .map(([label, value]) => ({ label, value, color: colorOf(label) }));
  const attemptBars = Object.entries(r.attemptOutcomes)
    .sort((a, b) => b[1] - a[1])
    .map(([label, value]) => ({ label, value, color: colorOf(label) }));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Load test ${escapeHtml(r.runId)}</title><style>${STYLE}</style></head>
<body>
<h1>Flash-sale load test ${escapeHtml(r.runId)}</h1>
<div>${escapeHtml(r.startedAt)}</div>
<div class="verdict ${r.ok ? 'ok' : 'bad'}" id="verdict">${r.ok ? 'All invariants hold' : 'INVARIANT VIOLATED'}${r.invariants.some((i) => !i.ok && i.severity === 'warning') ? ' (with warnings)' : ''}</div>
${generatorBanner(r)}
<h2>Invariants</h2>${invariantTable(r)}
${historyCheckHtml(r.historyCheck)}
<h2>Run</h2>${facts(r)}
${r.populations ? ('flow' in r.populations ? plainPopulationsHtml(r.populations) : populationsHtml(r.populations)) : ''}${r.waitingRoom ? waitingRoomHtml(r.waitingRoom) : ''}
<h2>Throughput</h2>${throughputChart(r)}
${generatorHtml(r)}
<h2>Latency</h2>${latencyCharts(r)}
<h2>Outcomes</h2>${barList('Every response, by status and contract code', outcomeBars)}${barList('Each attempt, by its final outcome (after retries)', attemptBars)}${refusalBars(r)}
<footer>Latency is measured by the client per HTTP request, from sending it to reading the whole body; transport failures are counted but not timed. Retries re-send the attempt's Idempotency-Key. The invariants are read from the admin API after the run.</footer>
</body></html>
`;
}
