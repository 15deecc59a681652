import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { LimitResult } from './limit';
import { BALANCER, type CpuCell } from './cpu-cells';
import type { HotResult } from './scenarios';
import { median } from '../lock/stats';
import type { RoundFigures } from './rounds';
import type { JoinWorkResult } from './join-work-cells';
import { NODE_CLIENT_CONNECTIONS } from './node-client-overload';

type CpuKey = 'floor' | 'nest' | 'live' | 'product' | 'soldOut' | 'hot' | 'poll' | 'join' | 'floorSpike' | 'spike' | 'balancedSpike' | 'overload';

export interface AppBenchResult {
  command: string;
  date: string;
  machine: { cpu?: string; cores: number; node: string; loadStart: number; loadEnd: number };
  env: { seconds: number; connections: number; users: number; spikeConnections: number; spikeSeconds: number; rounds?: number };
  cpu: Partial<Record<CpuKey, CpuCell>>;
  /** The 100-connection cells over their rounds (absent in results recorded before rounds). */
  rounds?: Partial<Record<CpuKey, RoundFigures>>;
  /** The opt-in join-work pair (`--cells join-work`). */
  joinWork?: JoinWorkResult;
  profiled: CpuCell[];
  limit?: LimitResult;
  hot: HotResult[];
}

const START = '<!-- bench:app:start -->';
const END = '<!-- bench:app:end -->';
const DOC = 'docs/BENCHMARKS.md';
/** The most one instance may hold resident under the spike or the Node client's overload. */
const PEAK_RSS_GOAL_MB = 300;
/** The purchase deadline the spike is judged against (the app's default unless set). */
const DEADLINE_MS = Number(process.env.PURCHASE_DEADLINE_MS ?? 2000);
const n = (value: number | undefined, digits = 0) => (value === undefined || Number.isNaN(value) || !Number.isFinite(value) ? '–' : value.toFixed(digits));
const pct = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : `${(value * 100).toFixed(0)}%`);
/** Inline code that survives backticks in the text (regular expressions have them). */
const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);
const verdict = (ok: boolean | undefined) => (ok === undefined ? '–' : ok ? 'PASS' : 'FAIL');

const answers = (c: CpuCell) => c.load.requests;
const perAnswerUs = (cpuS: number, count: number) => (count > 0 ? (cpuS / count) * 1e6 : undefined);
const created = (c: CpuCell) => c.load.byStatus['201'] ?? 0;

/**
 * A cell's answers per CPU-second against the floor's: the median over rounds of each round's
 * ratio when the cells ran in rounds, else the one run's.
 */
function vsFloor(r: AppBenchResult, key: CpuKey): number | undefined {
  const perRound = r.rounds?.[key]?.vsFloor;
  if (perRound?.length) return median(perRound);
  const cell = r.cpu[key];
  const floor = r.cpu.floor?.perCpuSecond;
  return cell && floor ? cell.perCpuSecond / floor : undefined;
}

/** `50%`, or `50% (42–55%)` with the range over rounds. */
function vsFloorText(r: AppBenchResult, key: CpuKey): string {
  const perRound = r.rounds?.[key]?.vsFloor;
  const range = perRound && perRound.length > 1 ? ` (${pct(Math.min(...perRound))}–${pct(Math.max(...perRound))})` : '';
  return `${pct(vsFloor(r, key))}${range}`;
}

/** How bare NestJS compares with bare Fastify, and the app's liveness with bare NestJS, in this run. */
function nestShare(r: AppBenchResult): string {
  const nest = vsFloor(r, 'nest');
  const live = vsFloor(r, 'live');
  const floor = r.cpu.floor;
  if (nest === undefined || !floor) return 'not measured in this run';
  const ofNest = live === undefined ? '' : `, and the app's liveness ${pct(live / nest)} of bare NestJS's`;
  return `it answers ${pct(nest)} of the floor's answers per CPU-second${ofNest}, so NestJS alone takes about ${n((1e6 / floor.perCpuSecond) * (1 / nest - 1))} µs of each answer before any app code runs`;
}

function cpuTable(r: AppBenchResult): string {
  const row = (key: CpuKey, goodput: (c: CpuCell) => number) => {
    const c = r.cpu[key];
    if (!c) return '';
    const share = key === 'floor' ? '100%' : vsFloorText(r, key);
    return `| ${c.name} | ${n(goodput(c) / c.load.seconds)} | ${n(c.perCpuSecond)} | ${share} | ${n(perAnswerUs(c.serverCpuS, goodput(c)))} | ${pct(c.serverSystemShare)} | ${n(perAnswerUs(c.redisCpuS, goodput(c)), 1)} | ${n(perAnswerUs(c.postgresCpuS, goodput(c)), 1)} | ${n(c.load.p50, 1)} / ${n(c.load.p99, 1)} / ${n(c.load.max)} ms | ${answerMix(c)} |`;
  };
  const ok = (c: CpuCell) => c.load.ok2xx;
  return `| load (${r.env.connections} connections, ${r.env.seconds} s) | answers/s | answers per server CPU-second | vs bare Fastify | server µs per answer | of it in the kernel | Redis µs | Postgres µs | p50 / p99 / max | answers |
|---|---:|---:|---:|---:|---:|---:|---:|---|---|
${[row('floor', ok), row('nest', ok), row('live', ok), row('product', ok), row('soldOut', (c) => c.load.byStatus['409'] ?? 0), row('hot', created), row('poll', ok), row('join', ok)].filter(Boolean).join('\n')}`;
}

/**
 * CPU per answer of a cell against the liveness route's, round by round (each round's live cell
 * ran beside it): the median and the range, or the one run's when there were no rounds.
 */
export function cpuVsLive(r: AppBenchResult, key: CpuKey): number[] {
  const cell = r.rounds?.[key]?.perCpuSecond;
  const live = r.rounds?.live?.perCpuSecond;
  if (cell?.length && live?.length === cell.length) return cell.map((perCpuS, i) => live[i] / perCpuS);
  const one = r.cpu[key];
  return one && r.cpu.live ? [r.cpu.live.perCpuSecond / one.perCpuSecond] : [];
}

/** The waiting room's goals: API CPU per poll and per join against the liveness route's. */
function waitingRoomTable(r: AppBenchResult): string {
  const row = (what: string, key: CpuKey, goal?: number) => {
    const ratios = cpuVsLive(r, key);
    if (!ratios.length) return '';
    const mid = median(ratios);
    return `| ${what} | ${ratios.map((x) => `${n(x, 2)}×`).join(', ')} | ${n(mid, 2)}× | ${goal === undefined ? '–' : `≤ ${goal}×`} | ${verdict(goal === undefined ? undefined : mid <= goal)} |`;
  };
  const rows = [row('API CPU per poll / per liveness answer', 'poll', 1.5), row('API CPU per join / per liveness answer', 'join', 2.5), row('API CPU per hot purchase (no waiting room) / per liveness answer', 'hot')].filter(Boolean);
  if (!rows.length) return '';
  return `Waiting room against liveness (CPU per answer, each round's cells side by side):

| ratio | per round | median | goal | |
|---|---|---:|---:|---|
${rows.join('\n')}`;
}

function answerMix(c: CpuCell): string {
  const total = Math.max(1, answers(c));
  const mix = Object.entries(c.load.byAnswer).sort((a, b) => b[1] - a[1]).map(([answer, count]) => `${answer} ${((count / total) * 100).toFixed(count === total ? 0 : 1)}%`);
  if (c.load.errors) mix.push(`${c.load.errors} socket errors/timeouts`);
  return mix.join(', ');
}

function spikeTable(r: AppBenchResult): string {
  const { floorSpike: floor, spike, balancedSpike: balanced, overload } = r.cpu;
  if (!spike && !balanced && !overload) return '';
  const base = r.cpu.hot ? created(r.cpu.hot) / r.cpu.hot.load.seconds : undefined;
  const waiting = (c: CpuCell) => (c.acceptQueue ? `${c.acceptQueue.maxLength} / ${(c.acceptQueue.lastWaitingAtMs / 1000).toFixed(1)} s` : '–');
  const row = (c: CpuCell | undefined, goodput: (c: CpuCell) => number, app: boolean) => {
    if (!c) return '';
    const perSecond = goodput(c) / c.load.seconds;
    const balancer = c.balancerCpuS === undefined ? '' : ` (HAProxy: ${n(perAnswerUs(c.balancerCpuS, answers(c)))} µs per answer)`;
    return `| ${c.name}${balancer} | ${n(c.load.p50)} / ${n(c.load.p99)} / ${n(c.load.max)} ms | ${n(perSecond)} | ${app && base ? pct(perSecond / base) : '–'} | ${n(c.perCpuSecond)} (${pct(c.perCpuSecond / ((app ? r.cpu.hot : r.cpu.floor)?.perCpuSecond ?? NaN))}) | ${answerMix(c)} | ${waiting(c)} | ${app ? n(c.deadlineMisses) : '–'} | ${n(c.peakRssMb)} MB | ${app ? c.violations.length : '–'} |`;
  };
  return `Spike: ${r.env.spikeConnections} connections opened at once, ${r.env.spikeSeconds} s; the app's on one hot product (one instance, ${r.env.users} distinct users), the floor's on its \`GET /live\`. "Through HAProxy" runs [deploy/haproxy/haproxy.cfg](../deploy/haproxy/haproxy.cfg) in front of the instance (${BALANCER.maxConn} requests in flight to it, at most ${BALANCER.queueMs} ms in HAProxy's queue), as a sale is deployed; HAProxy shares the machine's two cores. Goodput counts answers per second, so on these two cores it also falls when HAProxy and the load generator's thousands of connections take CPU the API would have had; answers per server CPU-second, against the same figure at ${r.env.connections} connections, tell whether the server itself does more work per answer under the crowd.

| server | p50 / p99 / max (as wrk sees it) | goodput (answers/s) | vs hot purchase at ${r.env.connections} connections | answers per server CPU-second (vs the same ${r.env.connections}-connection cell) | answers | accept queue of the server's port: longest / last seen waiting | answered past the deadline from arrival (the app's count) | peak RSS (the API) | invariant violations |
|---|---|---:|---:|---:|---|---|---:|---:|---:|
${[row(floor, (c) => c.load.ok2xx, false), row(spike, created, true), row(balanced, created, true), row(overload, created, true)].filter(Boolean).join('\n')}`;
}

function redisTable(c: CpuCell | undefined): string {
  if (!c?.redisCommands.length) return '';
  return `Redis commands per purchase in the hot cell (\`INFO commandstats\`):

| command | calls per purchase | µs per call | µs per purchase |
|---|---:|---:|---:|
${c.redisCommands.slice(0, 8).map((x) => `| ${x.command} | ${n(x.callsPerAnswer, 2)} | ${n(x.usecPerCall, 1)} | ${n(x.callsPerAnswer * x.usecPerCall, 1)} |`).join('\n')}`;
}

type GoalRow = [string, string, string, boolean | undefined];

/** The spike's goals for one way of meeting it (straight at the instance, or through the balancer). */
function spikeGoals(how: string, spike: CpuCell | undefined, base: number | undefined): GoalRow[] {
  const goodput = spike && base ? created(spike) / spike.load.seconds / base : undefined;
  const onlyContract = spike ? Object.keys(spike.load.byAnswer).every((a) => /^(201|409 [A-Z_]+|429 RATE_LIMITED|503 [A-Z_]+)$/.test(a)) && spike.load.errors === 0 : undefined;
  return [
    [`spike p99, ${how}`, `≤ ${DEADLINE_MS} ms`, `${n(spike?.load.p99)} ms`, spike ? spike.load.p99 <= DEADLINE_MS : undefined],
    [`spike max, ${how}`, `≤ ${DEADLINE_MS + 500} ms`, `${n(spike?.load.max)} ms`, spike ? spike.load.max <= DEADLINE_MS + 500 : undefined],
    [`spike goodput vs 100 connections, ${how}`, '≥ 90%', pct(goodput), goodput === undefined ? undefined : goodput >= 0.9],
    [`spike peak RSS of the API, ${how}`, `≤ ${PEAK_RSS_GOAL_MB} MB`, `${n(spike?.peakRssMb)} MB`, spike?.peakRssMb === undefined ? undefined : spike.peakRssMb <= PEAK_RSS_GOAL_MB],
    [`spike answers, ${how}`, 'only 201/409/429/503 with the contract body', spike ? Object.keys(spike.load.byAnswer).join(', ') : '–', onlyContract],
  ];
}

/** The Node client's 2,000-socket overload is judged by its peak memory alone (its goodput is in the spike table). */
function overloadRssGoal(overload: CpuCell | undefined): GoalRow {
  const rss = overload?.peakRssMb;
  return [`peak RSS of the API, a Node client holding ${NODE_CLIENT_CONNECTIONS} connections`, `≤ ${PEAK_RSS_GOAL_MB} MB`, `${n(rss)} MB`, rss === undefined ? undefined : rss <= PEAK_RSS_GOAL_MB];
}

function ratioGoal(r: AppBenchResult, goal: string, key: CpuKey, target: number): GoalRow {
  const ratio = vsFloor(r, key);
  return [goal, `≥ ${pct(target)}`, vsFloorText(r, key), ratio === undefined ? undefined : ratio >= target];
}

function goalsTable(r: AppBenchResult): string {
  const hot = r.cpu.hot;
  const spike = r.cpu.spike;
  const redisUs = hot ? perAnswerUs(hot.redisCpuS, created(hot)) : undefined;
  const pgUs = hot ? perAnswerUs(hot.postgresCpuS, created(hot)) : undefined;
  const base = hot ? created(hot) / hot.load.seconds : undefined;
  const violations = Object.values(r.cpu).reduce((sum, c) => sum + (c?.violations.length ?? 0), 0) + r.hot.reduce((sum, h) => sum + h.violations.length, 0);
  const rows: GoalRow[] = [
    ratioGoal(r, 'hot purchase per API CPU-second vs bare Fastify', 'hot', 0.35),
    ratioGoal(r, 'sold-out refusal vs bare Fastify', 'soldOut', 0.6),
    ratioGoal(r, 'liveness vs bare Fastify', 'live', 0.75),
    ['Redis CPU per purchase', '≤ 35 µs', `${n(redisUs)} µs`, redisUs === undefined ? undefined : redisUs <= 35],
    ['Postgres CPU per purchase', '≤ 80 µs', `${n(pgUs)} µs`, pgUs === undefined ? undefined : pgUs <= 80],
    ...spikeGoals('direct', spike, base),
    ...spikeGoals('through HAProxy', r.cpu.balancedSpike, base),
    overloadRssGoal(r.cpu.overload),
    ['invariant violations after every cell', '0', String(violations), violations === 0],
  ];
  return `| goal | target | measured | verdict |
|---|---|---|---|
${rows.map(([goal, target, measured, ok]) => `| ${goal} | ${target} | ${measured} | ${verdict(ok)} |`).join('\n')}`;
}

function limitTable(r: AppBenchResult): string {
  if (!r.limit || !r.hot.length) return '';
  const limit = r.limit.transactionsPerSecond;
  const row = (h: HotResult) =>
    `| hot, ${h.instances} instance(s) | ${n(h.purchasesPerSecond)} purchases/s | ${n(h.purchasesPerSecond / limit, 2)}× | ${n(h.load.p50)} / ${n(h.load.p99)} ms | ${h.peakRssMb.map((m) => n(m)).join(', ')} MB | ${n(h.batchMean, 1)} |`;
  return `Against the hot row's naive ceiling (autocannon, 128 connections, 5,000 users; the limit and hot with 1 instance take turns in 4 slices so that drift hits both alike):

| cell | throughput | vs limit | p50 / p99 | peak RSS per instance | mean batch |
|---|---:|---:|---|---|---:|
| limit: one connection, \`UPDATE … WHERE stock >= 1\` + \`INSERT\` per transaction, plain SQL | ${n(limit)} tx/s | 1.00× | – | – | – |
${r.hot.map(row).join('\n')}`;
}

function profileTables(r: AppBenchResult): string {
  return r.profiled
    .filter((c) => c.profile)
    .map((c) => {
      const p = c.profile!;
      return `Where the API's time goes in "${c.name}" (\`node --cpu-prof\`, ${p.samples} samples of CPU taken during the load, self time by module, idle left out; a separate, shorter run):

| module | share |
|---|---:|
${p.byArea.slice(0, 10).map((a) => `| ${a.area} | ${pct(a.share)} |`).join('\n')}

Top functions: ${p.topFunctions.slice(0, 10).map((f) => `${code(f.name.trim())} ${(f.share * 100).toFixed(1)}%`).join(', ')}. \`/proc\` put ${pct(c.serverSystemShare)} of this run's CPU in the kernel.`;
    })
    .join('\n\n');
}

/** The bench's tables, as printed and as written into the docs. */
export function renderTables(r: AppBenchResult): string {
  return [cpuTable(r), waitingRoomTable(r), spikeTable(r), goalsTable(r), redisTable(r.cpu.hot), limitTable(r), profileTables(r)].filter(Boolean).join('\n\n');
}

function render(r: AppBenchResult): string {
  return `${START}
## Application (npm run bench)

Command: \`${r.command}\` · date: ${r.date}

Machine: ${r.machine.cpu}, ${r.machine.cores} cores, Node ${r.machine.node}; the load generator, the API, Postgres and a private Redis all share these cores (1-min load ${n(r.machine.loadStart, 2)} at start, ${n(r.machine.loadEnd, 2)} at end).

Method: each cell starts a fresh process (the bare Fastify floor, bare NestJS, or one built API instance with the production flags), warms it for 2 s with other users' tokens, then drives it with \`wrk\` (a C load generator; the script installs it, \`ss\` and HAProxy when missing) for ${r.env.seconds} s at ${r.env.connections} connections, every request with the next of ${r.env.users} distinct users' JWTs. The CPU of the server under test, of the private redis-server and of the bench database's Postgres backends is read from \`/proc/<pid>/stat\` before and after the run, so the load generator's share of the cores stays out of the figures; "vs bare Fastify" divides answers per server CPU-second by the floor's, measured in the same run. The machine is a VM on a shared host: the same build's ratios have moved by up to a third between back-to-back runs (bare NestJS alone from 59% to 95% of the floor). So the ${r.env.connections}-connection cells take turns over ${r.env.rounds ?? 1} round(s), each round in another order; a row shows its median round, and "vs bare Fastify" is the median of each round's ratio to that round's floor, with the range over the rounds in brackets. Invariants are checked in Postgres after every cell that sells.

${renderTables(r)}

Reading the CPU figures: the floor answers a small GET with a 15-byte body, and ${pct(r.cpu.floor?.serverSystemShare)} of its CPU is the kernel's (system time in \`/proc\`), mostly sending the answer over loopback. Bare NestJS is the same answer through Nest's Fastify adapter and router with nothing of the app: ${nestShare(r)}. The app's routes pay that too, plus a larger request (a bearer token, a JSON body) and answer (security, cache and request-id headers), the global guard and pipe, and the per-request hooks (metrics, the request log line, the shutdown gate, the body-size bound, the purchase pipeline). Part of the gap is not the app's code: on loopback the sender's \`writev\` also delivers the answer to the load generator and wakes it when it sleeps, and \`wrk\` sleeps more often between the answers of a slower server. A \`perf record -e cpu-clock\` probe here put that wake-up (\`sock_def_readable\` under \`writev\`) at 3.2 µs per answer for bare NestJS, 9.4 µs for the app's liveness and 10.6 µs for the sold-out refusal; bare NestJS made to spend 15 µs more CPU in its handler paid 7.4 µs instead of 3.5 µs, so it is the server's speed, not its code, that sets it. A client on another machine would not charge it to the server. The app takes its locks with \`reentrant: false\`, so a purchase enters no AsyncLocalStorage scope (what that costs on Node 24 is measured under "The lock context on Node 24" below). A first-seen token costs one HMAC; a purchase also pays its share of its batch's Redis and Postgres round trips. The Redis and Postgres columns are what one purchase costs the shared servers: [SCALING.md](SCALING.md#fleet-ceiling-for-one-hot-product) turns them into a fleet's ceiling for one product. The profiles above come from V8's sampler, which ticks on wall-clock time: a tick also lands while the API waits for a core it was preempted from (300 to 1,000 times a second in the liveness cell here, \`nonvoluntary_ctxt_switches\` in \`/proc\`), and counts for the function it stopped in. So they can put more on \`writev\` than the kernel's whole share of the same run's CPU in \`/proc\` (liveness, one run: 75% against 39%): read \`writev\`'s share as an upper bound, and the rest as weights relative to each other. A \`perf record -e cpu-clock\` of the hot purchase, which samples CPU time, found no function above 3% of it: the cost is spread over V8's property lookups and promise machinery, garbage collection, Nest's and Fastify's per-request steps, the HTTP parser and the socket writes.

Reading the spike figures: Node's libuv (Node 24 here, as Node 20 before) accepts one new connection each time the listening socket is reported ready, that is once per event-loop turn. When thousands of connections open at once at a busy process, they wait in the kernel's accept queue (read with \`ss\`), unseen by the app, for as many turns as there are connections ahead of them; a buyer's first request waits there too. That wait is out of the app's reach: its own count of purchases answered past the deadline from their arrival stays at zero, and bare Fastify shows the same tail under the same crowd. Node's \`cluster\` module with one worker does not remove it either: its primary accepts at once, but hands the worker one connection at a time and waits for the worker's reply before the next, so the wait moves from the kernel's queue to that hand-off (one run: accept queue empty, p99 / max 7,489 / 8,930 ms, every answer a 201). A balancer that accepts in bulk and keeps a warm, bounded pool of connections to each instance removes it ([deploy/haproxy/haproxy.cfg](../deploy/haproxy/haproxy.cfg)): the crowd's handshakes land on HAProxy, the instance sees a few hundred kept-alive connections, and the excess waits in HAProxy's queue no longer than its timeout, then gets the contract's 503 \`OVERLOADED\`. Peak RSS is what the process maps beside V8's heap (about 115 MB under the crowd: 55 MB of it the node binary's own pages, 25 MB malloc's) plus the heap: two semispaces of up to 32 MB each (\`--max-semi-space-size=32\`) and an old generation that V8 lets grow to twice what survived its last major GC before marking again (\`--heap-growing-percent=100\`; see \`scripts/infra/api-process.ts\`), whose pages the process keeps. What survives is more than the purchases in flight. Heap snapshots of the Node client's 2,000-socket overload (\`--heapsnapshot-signal=SIGUSR2\`, one in the middle of the load and one after it) held 82 MB and 65 MB: the 17 MB between them were about 1,800 waiting purchases, 9 KB each (the socket with Node's seven bound listeners per connection, Node's and Fastify's request and response, the suspended handlers' promises, closures and contexts); of the 65 MB that stay, the verified-token memory (\`auth/token-memory.ts\`, up to 50,000 tokens at about 500 bytes each: the \`Authorization\` header the token is sliced from, its claims, the user) held 26,000 tokens there, up to 27 MB when full, and the rest is the modules' code, bytecode and sources. The growth factor doubles all of it. The purchases wait long enough (p50 above 400 ms) to survive the young generation and be promoted, so garbage collection took 33% of the API's CPU in the direct spike against 9% at 100 connections (\`perf record -e cpu-clock\`, one run each), which is why the server does fewer answers per CPU-second under that crowd. A hard cap on the old generation (\`--max-old-space-size\` 160 to 224) cost 20 to 50% of the spike's goodput in garbage collection here, and a growth factor of 1.3 cost 11-15% of the hot purchases per CPU-second, so neither is used; smaller semispaces and a factor of 1.75 are measured under [Peak memory under a crowd](#peak-memory-under-a-crowd).
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
