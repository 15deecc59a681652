import { PopulationsReport } from './populations';
import { addressingText, populationLine, solveText } from './summary-table';
import { barList, columnChart, escapeHtml, niceScale, svg } from './svg-charts';
import { LatencySummary } from './types';
import { WaitingRoomReport } from './waiting-room-report';

const W = 760;
const H = 280;
const PAD = { left: 64, right: 16, top: 16, bottom: 40 };
/** Enough dots to show the shape; more only make the page heavy. */
const MAX_POINTS = 2000;

const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const spread = (l: LatencySummary): string =>
  l.count ? `p50 ${s(l.p50)} · p90 ${s(l.p90)} · p99 ${s(l.p99)} · max ${s(l.max)} (${l.count})` : 'none';
const counts = (c: Record<string, number>): string =>
  Object.entries(c)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

/** Each admitted ticket as a dot: queue rank across, first seen ADMITTED up. Fair admission rises left to right. */
function orderScatter(w: WaitingRoomReport): string {
  const step = Math.max(1, Math.ceil(w.order.points.length / MAX_POINTS));
  const points = w.order.points.filter((_, i) => i % step === 0);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = niceScale(Math.max(1, ...points.map(([rank]) => rank)));
  const y = niceScale(Math.max(1, ...points.map(([, ms]) => ms / 1000)));
  const parts: string[] = [];
  for (let tick = 0; tick <= y.max + 1e-9; tick += y.step) {
    const py = PAD.top + plotH - (tick / y.max) * plotH;
    parts.push(
      `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${py.toFixed(1)}" y2="${py.toFixed(1)}"/><text class="tick" x="${PAD.left - 6}" y="${(py + 4).toFixed(1)}" text-anchor="end">${tick.toFixed(y.step < 1 ? 1 : 0)}</text>`,
    );
  }
  for (let tick = 0; tick <= x.max + 1e-9; tick += x.step) {
    const px = PAD.left + (tick / x.max) * plotW;
    parts.push(
      `<text class="tick" x="${px.toFixed(1)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${tick}</text>`,
    );
  }
  const yOf = (ms: number) => PAD.top + plotH - (Math.max(0, ms) / 1000 / y.max) * plotH;
  for (const [rank, ms, waitingMs] of points) {
    const px = (PAD.left + (rank / x.max) * plotW).toFixed(1);
    // The window the admission happened in: still WAITING at the lower end, ADMITTED by the dot.
    if (waitingMs !== null)
      parts.push(
        `<line x1="${px}" x2="${px}" y1="${yOf(waitingMs).toFixed(1)}" y2="${yOf(ms).toFixed(1)}" stroke="#a9bfdf" stroke-width="1.2"/>`,
      );
    parts.push(`<circle cx="${px}" cy="${yOf(ms).toFixed(1)}" r="2.2" fill="#3b6fb6"/>`);
  }
  parts.push(
    `<text class="axis" x="${PAD.left + plotW / 2}" y="${H - 6}" text-anchor="middle">place in the queue order (pre-queue by HMAC, then ticket number)</text>`,
  );
  parts.push(
    `<text class="axis" x="14" y="${PAD.top + plotH / 2}" transform="rotate(-90 14 ${PAD.top + plotH / 2})" text-anchor="middle">first seen ADMITTED (s into the run)</text>`,
  );
  const note = step > 1 ? ` (every ${step}th ticket)` : '';
  return svg(
    `Admission against queue order: ${w.order.inversions} inversion(s)${note}`,
    parts.join(''),
    '<div class="legend"><span class="key"><i style="background:#3b6fb6"></i>first ADMITTED answer</span><span class="key"><i style="background:#a9bfdf"></i>from the last WAITING poll sent</span></div>',
    H,
  );
}

function percentileColumns(title: string, l: LatencySummary, color: string): string {
  const cols = (['p50', 'p90', 'p99', 'max'] as const).map((k) => ({
    label: `${k} ${Math.round(l[k])} ms`,
    values: [Math.max(0, l[k])],
  }));
  return columnChart(title, [{ name: title, color }], cols, 'ms');
}

/** The report's waiting-room part: facts, wait times, admission order, sold-out reach. */
export function waitingRoomHtml(w: WaitingRoomReport): string {
  const so = w.soldOut;
  const rows: [string, string][] = [
    [
      'buyers',
      `${w.buyers}, admitted at ${w.admitPerSecond !== undefined ? `${w.admitPerSecond}/s` : "the server's automatic rate"}`,
    ],
    ['how buyers ended', counts(w.finals)],
    ['join answers', counts(w.joins)],
    ['poll answers', counts(w.polls)],
    ['polls before pollAfterMs', String(w.earlyPolls)],
    ['join → admission', spread(w.joinToAdmissionMs)],
    ['admission → purchase answer', spread(w.admissionToPurchaseMs)],
    [
      'admission inversions',
      `${w.order.inversions} over ${w.order.compared} tickets (${w.order.admitted} seen admitted, ${w.order.preQueue} pre-queue)`,
    ],
    [
      'sold-out reach',
      so.lastCreatedAtMs === null
        ? 'nothing bought'
        : `${spread(so.reachMs)}; ${(so.within1s * 100).toFixed(1)} % of ${so.pollers} pollers within 1 s`,
    ],
    [
      'stale answers after sold-out',
      `${so.staleAnswers} poll(s) asked over 1 s after the last 201 answered WAITING/ADMITTED`,
    ],
  ];
  const facts = `<table class="facts">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
  const examples = w.order.examples.length
    ? `<ul>${w.order.examples.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>`
    : '';
  const finals = barList(
    'How each buyer ended',
    Object.entries(w.finals)
      .sort((a, b) => b[1] - a[1])
      .map(([label, value]) => ({
        label,
        value,
        color: label === 'BOUGHT' ? '#2e9e5b' : label === 'SOLD_OUT' ? '#e0a526' : '#8a97a8',
      })),
  );
  return `<h2>Waiting room</h2>${facts}${finals}
<h3>Wait times</h3>${percentileColumns('Join → first ADMITTED answer (ms)', w.joinToAdmissionMs, '#3b6fb6')}${percentileColumns('First ADMITTED answer → purchase answer (ms)', w.admissionToPurchaseMs, '#2e9e5b')}
<h3>Admission order</h3>${orderScatter(w)}${examples}
<p class="note">An inversion is a pair of tickets A before B in queue order (tickets taken before the sale's start ranked by HMAC-SHA256(seed, ticketId), then the rest by ticket number) where A was still answered WAITING at a poll sent after B had been answered ADMITTED. Admission is seen at polls: each ticket was admitted somewhere on its line, between its last WAITING poll and its dot. In a fair admission no line starts above a dot to its right.</p>
<h3>Sold-out reach</h3>${so.pollers ? percentileColumns('First SOLD_OUT answer − last 201, per poller (ms)', so.reachMs, '#e0a526') : ''}
<p class="note">A poller hears SOLD_OUT at its next poll, at most its last pollAfterMs later; the server's promise (every poll answers SOLD_OUT within 1 s of the last unit) is judged by the stale answers: polls sent more than 1 s after the last 201 that still answered WAITING or ADMITTED.</p>`;
}

/** The report's populations part: units per account and share of the stock, people against bots. */
export function populationsHtml(p: PopulationsReport): string {
  const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
  const p95 = p.people.joinToAdmissionP95Ms;
  const arrival = p.people.arrivalToAdmissionP95Ms;
  const rows: [string, string][] = [
    ['people', populationLine(p.people)],
    ['bots', p.bots.accounts ? populationLine(p.bots) : 'none'],
    ['bot share of the stock', pct(p.botShare)],
    [
      'units per bot account / per person account',
      p.botToPersonPerAccount === null
        ? 'n/a (no bots, or people won nothing)'
        : `${p.botToPersonPerAccount.toFixed(2)}x`,
    ],
    [
      "people's join → admission",
      `p95 ${p95 === null ? 'n/a' : s(p95)}; from arrival (challenge and solve included) p95 ${arrival === null ? 'n/a' : s(arrival)}`,
    ],
    ['joins refused (no ticket)', `people: ${counts(p.people.joinsRefused)}; bots: ${counts(p.bots.joinsRefused)}`],
    [
      'join attempts answered 429 (retried after Retry-After)',
      `people: ${p.people.joinsRateLimited}; bots: ${p.bots.joinsRateLimited}`,
    ],
    [
      'join work (client CPU)',
      `people: ${solveText(p.people)}; bots: ${solveText(p.bots)}; the generator solves on ${p.solverThreads} thread(s)`,
    ],
    [
      'polls',
      `${p.bots.accounts ? `bots ${p.bots.polls} (${p.bots.pollsRateLimited} answered 429), ${p.bots.pollsPerTicketSecond.toFixed(1)}/s a ticket (aiming at ${p.botPollsPerSecond}/s); ` : ''}people ${p.people.polls}, ${p.people.pollsPerTicketSecond.toFixed(1)}/s a ticket`,
    ],
    [
      'door',
      `pre-queue ${p.preQueueS === null ? 'none' : `${p.preQueueS} s`}; join work ${p.joinWork ? `${p.joinWork.squarings} squarings` : 'off'}; joins per address ${p.joinsPerAddress ?? 'unlimited'}`,
    ],
    ['people react in', `${p.reactionMs.minMs}–${p.reactionMs.maxMs} ms`],
    ['client addresses', addressingText(p)],
  ];
  const facts = `<table class="facts">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
  const perAccount = barList('Units won per account', [
    { label: `person (${p.people.accounts})`, value: Number(p.people.unitsPerAccount.toFixed(3)), color: '#2e9e5b' },
    { label: `bot (${p.bots.accounts})`, value: Number(p.bots.unitsPerAccount.toFixed(3)), color: '#c0392b' },
  ]);
  const share = barList('Units won (share of the stock)', [
    { label: `people ${pct(p.people.share)}`, value: p.people.units, color: '#2e9e5b' },
    { label: `bots ${pct(p.bots.share)}`, value: p.bots.units, color: '#c0392b' },
  ]);
  return `<h2>People and bots</h2>${facts}${perAccount}${share}
<p class="note">Units are counted from the orders this run was answered 201 for (its own records), by the account that bought them. People arrive over the pre-queue, poll at pollAfterMs and react before buying; bots join at the first instant, poll at the per-ticket limit and buy and retry at once.</p>`;
}
