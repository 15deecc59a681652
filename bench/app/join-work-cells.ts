import type { JoinWorkChallenge } from '../../apps/api/src/waiting-room/join-work/join-work';
import { invariants } from '../../test/support/api-client';
import { JoinWorkPool } from '../../scripts/loadtest/join-work';
import { joinWorkCost, JoinWorkCost } from '../join-work-cost';
import { createProduct, startInstances } from './app-stack';
import { CpuBenchEnv, measure, WARM_UP_S } from './cpu-cells';
import {
  JoinWorkRound,
  JoinWorkSide,
  JoinWorkSummary,
  MeasuredLoad,
  renderJoinWork,
  roundFigures,
  sidesOfRound,
  summariseJoinWork,
} from './join-work-pair';
import { adminToken, userOf, userTokens } from './tokens';
import { QUEUED_PRODUCT } from './waiting-room-cells';
import { runWrk, WrkResult, WrkSpec } from './wrk';

/** T of the measured sale: the least the API takes. The server's cost does not depend on T, the client's grows with it. */
export const JOIN_WORK_SQUARINGS = 1_000;
/** T of the in-process figures printed beside the pair (bench/join-work-cost.ts): a solve of a few hundred ms. */
export const COST_SQUARINGS = 300_000;
/** Worked joins sent (each once) before the measured ones, to warm the worked join's path. */
const WARM_WORKED_JOINS = 5_000;
/** Users whose first request warms either side (the warm-up repeats them, as the join cell's does). */
const WARM_USERS = 5_000;
/** Each measured load sends every entry once and ends when all are answered; this only caps it. */
const CAP_S = 120;

export interface JoinWorkResult {
  squarings: number;
  users: number;
  connections: number;
  rounds: JoinWorkRound[];
  summary: JoinWorkSummary;
  /** The client's solves of the measured challenges (T = squarings), on the bench's solver threads. */
  solves: { count: number; meanCpuMs: number; wallS: number };
  /** In process, at COST_SQUARINGS: bench/join-work-cost.ts's figures. */
  cost: JoinWorkCost;
}

const tokenCache = new Map<string, string[]>();
function tokensOf(count: number, tag: string): string[] {
  const key = `${tag}:${count}`;
  let tokens = tokenCache.get(key);
  if (!tokens) tokenCache.set(key, (tokens = userTokens(count, tag)));
  return tokens;
}

const ok200 = (load: WrkResult) => load.byStatus['200'] ?? 0;

/** The API's count of new tickets (waiting_room_joins_total{outcome="new"}), from its /metrics. */
async function newJoins(metricsUrl: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  return Number(/^waiting_room_joins_total\{outcome="new"\} (\S+)/m.exec(text)?.[1] ?? 0);
}

/** A measured load's figures; the answers must all be 200 (and, for joins, all new tickets). */
async function measured(
  env: CpuBenchEnv,
  name: string,
  pid: number,
  spec: WrkSpec,
  violations: string[],
  log: (line: string) => void,
  metricsUrl?: string,
): Promise<MeasuredLoad> {
  const before = metricsUrl ? await newJoins(metricsUrl) : 0;
  const cell = await measure(env, name, pid, spec, ok200);
  const answers = ok200(cell.load);
  const { seconds } = cell.load;
  log(
    `  ${name}: ${answers} answers in ${seconds.toFixed(2)} s (${(answers / seconds).toFixed(0)}/s), API ${cell.serverCpuS.toFixed(2)} CPU-s (${((cell.serverCpuS / seconds) * 100).toFixed(0)}% of a core), ${((cell.serverCpuS / Math.max(1, answers)) * 1e6).toFixed(1)} µs per answer`,
  );
  const sent = spec.tokens?.length ?? 0;
  if (answers !== sent || cell.load.errors > 0)
    violations.push(
      `${name}: ${answers} answered 200 of ${sent} sent (${JSON.stringify(cell.load.byAnswer)}, ${cell.load.errors} socket errors or timeouts)`,
    );
  if (metricsUrl) {
    const created = (await newJoins(metricsUrl)) - before;
    if (created !== answers) violations.push(`${name}: ${created} new tickets for ${answers} joins answered`);
  }
  return { answers, apiCpuS: cell.serverCpuS, redisCpuS: cell.redisCpuS };
}

async function fetchChallenge(url: string): Promise<JoinWorkChallenge> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`join-work: the challenge answered HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as JoinWorkChallenge;
}

/** One side on a fresh API process and a fresh product: what it measured, and its invariants after. */
async function side(
  env: CpuBenchEnv,
  which: JoinWorkSide,
  users: number,
  log: (line: string) => void,
): Promise<{
  plain?: MeasuredLoad;
  challenge?: MeasuredLoad;
  workedJoin?: MeasuredLoad;
  violations: string[];
  solves?: JoinWorkResult['solves'];
}> {
  const { apis } = await startInstances(1, env.databaseUrl, env.redisUrl, false, env.apiEntry, env.apiNode);
  const api = apis[0];
  const violations: string[] = [];
  let productId: string | undefined;
  const load = { connections: env.connections, seconds: CAP_S, once: true } as const;
  try {
    const waitingRoom =
      which === 'plain'
        ? QUEUED_PRODUCT.waitingRoom
        : { ...QUEUED_PRODUCT.waitingRoom, joinWork: { squarings: JOIN_WORK_SQUARINGS } };
    productId = await createProduct(api.url, adminToken(), QUEUED_PRODUCT.stock, QUEUED_PRODUCT.perUserLimit, {
      waitingRoom,
    });
    const queue = `${api.url}/products/${productId}/queue`;
    const warm = { connections: env.connections, seconds: WARM_UP_S, tokens: tokensOf(WARM_USERS, 'jw-warm') };
    if (which === 'plain') {
      // As the join cell: warm with joins, then measure; here each measured user joins once.
      await runWrk({ ...warm, url: queue, method: 'POST', body: '{}' });
      const plain = await measured(
        env,
        'plain join',
        api.pid!,
        { ...load, url: queue, method: 'POST', body: '{}', tokens: tokensOf(users, 'jw-plain') },
        violations,
        log,
        api.metricsUrl,
      );
      return { plain, violations };
    }
    const challengeUrl = `${queue}/challenge`;
    await runWrk({ ...warm, url: challengeUrl, method: 'GET' });
    // Each user fetches the sale's challenge once, as a client without a cache in front of the API
    // would (the token is sent as a client would send it; the route does not read it).
    const challenge = await measured(
      env,
      'challenge',
      api.pid!,
      { ...load, url: challengeUrl, method: 'GET', tokens: tokensOf(users, 'jw-challenge') },
      violations,
      log,
    );
    // Outside any measured window: the joining users fetch their challenges and solve them.
    const joinTokens = tokensOf(users + WARM_WORKED_JOINS, 'jw-join');
    const startedAt = performance.now();
    const puzzle = await fetchChallenge(challengeUrl);
    const fetchedAt = performance.now();
    const pool = new JoinWorkPool();
    let solved;
    try {
      solved = await Promise.all(joinTokens.map((_, i) => pool.solve(puzzle, userOf('jw-join', i), 'person')));
    } finally {
      await pool.close();
    }
    const solves = {
      count: solved.length,
      meanCpuMs: solved.reduce((sum, s) => sum + s.cpuMs, 0) / solved.length,
      wallS: (performance.now() - fetchedAt) / 1000,
    };
    log(
      `  fetched the challenge in ${(fetchedAt - startedAt).toFixed(0)} ms, solved it for ${solved.length} users in ${solves.wallS.toFixed(1)} s on ${pool.size} threads (${solves.meanCpuMs.toFixed(2)} ms of CPU each)`,
    );
    const bodies = solved.map((s) => JSON.stringify({ work: s.work }));
    const warmJoins = {
      ...load,
      url: queue,
      method: 'POST' as const,
      tokens: joinTokens.slice(users),
      bodies: bodies.slice(users),
    };
    await measured(env, 'worked join warm-up', api.pid!, warmJoins, violations, log, api.metricsUrl);
    const workedJoin = await measured(
      env,
      'worked join',
      api.pid!,
      { ...load, url: queue, method: 'POST', tokens: joinTokens.slice(0, users), bodies: bodies.slice(0, users) },
      violations,
      log,
      api.metricsUrl,
    );
    return { challenge, workedJoin, violations, solves };
  } finally {
    await api.stop();
    if (productId) violations.push(...(await invariants(env.databaseUrl, productId)).violations);
  }
}

/**
 * The `join-work` cell: per round, (a) and (b) on fresh API processes, in turns (a b, b a, ...):
 *  (a) plain joins: warm-up as the join cell's, then `users` fresh users join once each;
 *  (b) a product with joinWork at T = JOIN_WORK_SQUARINGS: warm-up with challenges, then (b1)
 *      `users` fetches of the sale's challenge, one per user (no cache in front of the API);
 *      untimed, the bench solves it for `users` + WARM_WORKED_JOINS other users (solveJoinWork's
 *      loop on worker threads); then WARM_WORKED_JOINS of them join (warm-up) and (b2) `users`
 *      join with their solutions, each a user the API has not seen (its token verified).
 * Every figure is the API process's CPU from /proc over its load, divided by its 200 answers; (b)
 * per user is b1 + b2.
 * Then bench/join-work-cost.ts's in-process figures at COST_SQUARINGS.
 */
export async function runJoinWork(
  env: CpuBenchEnv,
  rounds: number,
  users: number,
  log: (line: string) => void,
): Promise<JoinWorkResult> {
  const byRound: JoinWorkRound[] = [];
  const solves: Array<NonNullable<JoinWorkResult['solves']>> = [];
  for (let round = 0; round < rounds; round++) {
    const parts: Partial<JoinWorkRound> = {};
    const violations: string[] = [];
    for (const which of sidesOfRound(round)) {
      log(
        `join-work, ${which === 'plain' ? '(a) plain join' : `(b) challenge + worked join, T=${JOIN_WORK_SQUARINGS}`}, round ${round + 1} of ${rounds}…`,
      );
      const result = await side(env, which, users, log);
      Object.assign(parts, {
        plain: result.plain ?? parts.plain,
        challenge: result.challenge ?? parts.challenge,
        workedJoin: result.workedJoin ?? parts.workedJoin,
      });
      violations.push(...result.violations);
      if (result.solves) solves.push(result.solves);
    }
    const done = { ...(parts as Omit<JoinWorkRound, 'violations'>), violations };
    byRound.push(done);
    const f = roundFigures(done);
    log(
      `  round ${round + 1}: (a) ${f.plainUs.toFixed(1)} µs; (b) challenge ${f.challengeUs.toFixed(1)} + worked join ${f.workedJoinUs.toFixed(1)} = ${f.workUs.toFixed(1)} µs; (b)/(a) ${f.ratio.toFixed(2)}×; violations ${violations.length}`,
    );
  }
  log(`join-work: in-process costs at T=${COST_SQUARINGS} (bench/join-work-cost.ts)…`);
  const cost = await joinWorkCost(COST_SQUARINGS);
  return {
    squarings: JOIN_WORK_SQUARINGS,
    users,
    connections: env.connections,
    rounds: byRound,
    summary: summariseJoinWork(byRound),
    solves: {
      count: solves.reduce((s, x) => s + x.count, 0),
      meanCpuMs:
        solves.reduce((s, x) => s + x.meanCpuMs * x.count, 0) /
        Math.max(
          1,
          solves.reduce((s, x) => s + x.count, 0),
        ),
      wallS: solves.reduce((s, x) => s + x.wallS, 0),
    },
    cost,
  };
}

/** The pair's tables and the in-process figures, as printed after the run. */
export function renderJoinWorkResult(result: JoinWorkResult): string {
  const { cost, summary } = result;
  return [
    `join-work: API CPU per join of a fresh user, ${result.users} users per measured load at ${result.connections} connections, ${result.rounds.length} rounds (the API's CPU from /proc; the load generator and the solves are not counted)`,
    '',
    renderJoinWork(summary, result.squarings),
    '',
    `(b)/(a), the median of each round's ratio: ${summary.ratio.median.toFixed(2)}× (goal ≤ 2×); the worked join alone: ${summary.joinOnlyRatio.median.toFixed(2)}×. Violations: ${summary.violations.length ? summary.violations.join('; ') : 'none'}.`,
    `Client solves at T=${result.squarings}: ${result.solves.count}, ${result.solves.meanCpuMs.toFixed(2)} ms of CPU each (solveJoinWork's loop on the bench's threads).`,
    `In process at T=${cost.squarings} (bench/join-work-cost.ts): solve ${cost.solveMs.toFixed(0)} ms; check ${cost.checkUs.toFixed(1)} µs (goal ≤ 100 µs; a wrong solution ${cost.refuseUs.toFixed(1)} µs); the minute's challenge from memory ${cost.issueUs.toFixed(2)} µs; solve/check ${((cost.solveMs * 1e3) / cost.checkUs).toFixed(0)}× (goal ≥ 5,000×).`,
  ].join('\n');
}
