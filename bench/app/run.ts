import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createDatabase } from '../../scripts/infra/databases';
import { ensurePostgres } from '../../scripts/infra/postgres';
import { RedisServerProcess } from '../../test/support/redis-server';
import { balancedSpikeCell, CpuBenchEnv, CpuCell, floorCell, floorSpikeCell, hotCell, liveCell, nestFloorCell, productReadCell, soldOutCell, spikeCell } from './cpu-cells';
import { joinCell, pollCell } from './waiting-room-cells';
import { nodeClientOverloadCell } from './node-client-overload';
import { LimitProbe } from './limit';
import { AppBenchResult, renderTables, writeAppSection } from './report';
import { hot, HotResult, ROUNDS } from './scenarios';
import { ensureWrk, raiseOpenFileLimit } from './wrk';
import { ensureHaproxy } from './balancer';
import { ensureSs } from './accept-queue';
import { rotate, summariseRounds } from './rounds';
import { AB_DEFAULT_CELLS, runAb } from './ab-run';
import { renderJoinWorkResult, runJoinWork } from './join-work-cells';

const ALL_CELLS = ['floor', 'nest', 'live', 'product', 'soldout', 'hot', 'poll', 'join', 'floorspike', 'spike', 'balanced', 'overload', 'limit'] as const;
/** Cells that run only when named in `--cells` (not part of the full run that writes the docs). */
const OPT_IN_CELLS = ['join-work'] as const;
type CellName = (typeof ALL_CELLS)[number] | (typeof OPT_IN_CELLS)[number];
/** The cells at the usual connections, whose ratios to the floor are the goals: run in rounds. */
const ROUND_CELLS: readonly CellName[] = ['floor', 'nest', 'live', 'product', 'soldout', 'hot', 'poll', 'join'];
type RoundKey = 'floor' | 'nest' | 'live' | 'product' | 'soldOut' | 'hot' | 'poll' | 'join';
/** The app's cells that the last pass runs under `node --cpu-prof`. */
const PROFILED_CELLS: readonly CellName[] = ['live', 'soldout', 'hot', 'poll', 'join'];

/**
 * `npm run bench` (app part), one run on a private Redis and a fresh database:
 *  - CPU per answer with wrk, server CPU read from /proc: the bare Fastify floor, bare NestJS,
 *    liveness, the product read, the sold-out refusal, the hot purchase (distinct users) and the
 *    waiting room's poll (distinct tickets) and join (distinct users),
 *    taking turns over `--rounds` rounds, then the spike of thousands of connections on the floor
 *    and on the app, and the overload of a Node client holding 2,000 sockets, with invariants
 *    checked after every cell;
 *  - the hot-row comparison: hot purchases through 1 instance taking turns with the naive
 *    one-transaction-per-purchase limit, and through 2 instances.
 * A last, shorter pass runs the app cells under `node --cpu-prof` for where the time goes
 * (`--skip-profile` leaves it out). `--cells live,hot` runs some cells only (printed, not written
 * to the docs). `--baseline <git-ref>` compares app cells with an earlier commit's build in the same
 * run instead (see ab-run.ts; `--cells` then defaults to hot,soldout,live,spike), on the node
 * binary `--baseline-node <path>` when given; `--current <git-ref>` puts a build of that commit in
 * place of this checkout's.
 * `--cells join-work` (opt-in, not in the full run) measures the API's CPU per join of a fresh user
 * without and with waitingRoom.joinWork, taking turns over `--rounds` rounds, `--join-work-users`
 * users per measured load (see join-work-cells.ts).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '100' },
      users: { type: 'string', default: '50000' },
      'spike-connections': { type: 'string', default: '4000' },
      'spike-seconds': { type: 'string', default: '12' },
      cells: { type: 'string' },
      rounds: { type: 'string', default: '3' },
      'join-work-users': { type: 'string', default: '5000' },
      'skip-profile': { type: 'boolean', default: false },
      baseline: { type: 'string' },
      // The node binary of the baseline's side (built and run on it), e.g. /usr/bin/node for Node 20.
      'baseline-node': { type: 'string' },
      // A commit built and run as the current side instead of this checkout (two variants side by side).
      current: { type: 'string' },
    },
  });
  values.cells ??= values.baseline === undefined ? ALL_CELLS.join(',') : AB_DEFAULT_CELLS;
  const cells = new Set(values.cells.split(',') as CellName[]);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number of at least 1, got ${values.rounds}`);
  const log = (line: string) => console.log(`[bench] ${line}`);
  const known: readonly string[] = [...ALL_CELLS, ...OPT_IN_CELLS];
  for (const cell of cells) if (!known.includes(cell)) throw new Error(`unknown cell ${cell}; cells: ${known.join(', ')}`);
  const joinWorkUsers = Number(values['join-work-users']);
  if (!Number.isInteger(joinWorkUsers) || joinWorkUsers < 100) throw new Error(`--join-work-users must be a whole number of at least 100, got ${values['join-work-users']}`);
  ensureWrk();
  ensureSs();
  if (cells.has('balanced')) ensureHaproxy();
  const openFiles = raiseOpenFileLimit();
  if (openFiles < Number(values['spike-connections']) + 1024) {
    console.warn(`[bench] the open-file limit is ${openFiles}: the spike's connections may fail with EMFILE (raise it with ulimit -Hn as root)`);
  }
  if (values.baseline !== undefined) {
    const load = {
      seconds: Number(values.seconds),
      connections: Number(values.connections),
      users: Number(values.users),
      spikeConnections: Number(values['spike-connections']),
      spikeSeconds: Number(values['spike-seconds']),
    };
    // The A/B run has no profiling pass: `--skip-profile` is accepted and changes nothing.
    return runAb({ ref: values.baseline, cells: [...cells], rounds, load, baselineNode: values['baseline-node'], currentRef: values.current }, log);
  }
  const startedAt = new Date();
  const loadStart = loadavg()[0];
  const postgres = await ensurePostgres();
  const databaseUrl = await createDatabase(postgres.url, 'flashsale_bench', true);
  const redis = await RedisServerProcess.start();
  const env: CpuBenchEnv = {
    databaseUrl,
    redisUrl: redis.url,
    redisPid: redis.pid!,
    seconds: Number(values.seconds),
    connections: Number(values.connections),
    users: Number(values.users),
    spikeConnections: Number(values['spike-connections']),
    spikeSeconds: Number(values['spike-seconds']),
    profile: false,
  };
  const cpu: AppBenchResult['cpu'] = {};
  const profiled: CpuCell[] = [];
  const hotCells: HotResult[] = [];
  let roundFigures: AppBenchResult['rounds'];
  let joinWork: AppBenchResult['joinWork'];
  let limit;
  try {
    const plan: Array<[CellName, keyof typeof cpu, (e: CpuBenchEnv) => Promise<CpuCell>]> = [
      ['floor', 'floor', floorCell],
      ['nest', 'nest', nestFloorCell],
      ['live', 'live', liveCell],
      ['product', 'product', productReadCell],
      ['soldout', 'soldOut', soldOutCell],
      ['hot', 'hot', hotCell],
      ['poll', 'poll', pollCell],
      ['join', 'join', joinCell],
      ['floorspike', 'floorSpike', floorSpikeCell],
      ['spike', 'spike', spikeCell],
      ['balanced', 'balancedSpike', balancedSpikeCell],
      ['overload', 'overload', nodeClientOverloadCell],
    ];
    const logCell = (cell: CpuCell) =>
      log(`  ${cell.load.requests} answers ${JSON.stringify(cell.load.byAnswer)}; ${cell.perCpuSecond.toFixed(0)} per server CPU-second; p50/p99/max ${cell.load.p50.toFixed(1)}/${cell.load.p99.toFixed(1)}/${cell.load.max.toFixed(0)} ms; peak RSS ${cell.peakRssMb?.toFixed(0) ?? '–'} MB; violations ${cell.violations.length}`);
    // The 100-connection cells take turns over several rounds, each round in another order: the
    // machine drifts between cells by more than the goals' margins (see rounds.ts).
    const roundPlan = plan.filter(([name]) => cells.has(name) && ROUND_CELLS.includes(name));
    const byRound: Array<Partial<Record<RoundKey, CpuCell>>> = [];
    for (let round = 0; round < rounds; round++) {
      byRound.push({});
      for (const [name, key, run] of rotate(roundPlan, round)) {
        log(`${name}, round ${round + 1} of ${rounds}…`);
        const cell = await run(env);
        byRound[round][key as RoundKey] = cell;
        logCell(cell);
      }
    }
    const summary = summariseRounds<RoundKey>(byRound, 'floor');
    Object.assign(cpu, summary.cells);
    roundFigures = summary.rounds;
    if (cells.has('join-work')) joinWork = await runJoinWork(env, rounds, joinWorkUsers, log);
    for (const [name, key, run] of plan) {
      if (!cells.has(name) || ROUND_CELLS.includes(name)) continue;
      log(`${name}…`);
      const cell = await run(env);
      cpu[key] = cell;
      logCell(cell);
    }
    if (!values['skip-profile']) {
      for (const [name, , run] of plan) {
        if (!cells.has(name) || !PROFILED_CELLS.includes(name)) continue;
        log(`${name} under --cpu-prof (where the time goes; not a measured cell)…`);
        profiled.push(await run({ ...env, seconds: Math.min(env.seconds, 6), profile: true }));
      }
    }
    if (cells.has('limit')) {
      log('hot, 1 instance, taking turns with the limit (one connection, one transaction per purchase)…');
      const probe = new LimitProbe(databaseUrl);
      const turnEnv = { ...env, users: Math.min(env.users, 5000), connections: 128 };
      hotCells.push(await hot(turnEnv, 1, () => probe.run(env.seconds / ROUNDS)));
      limit = await probe.close();
      log(`  ${hotCells[0].purchasesPerSecond.toFixed(0)} purchases/s; limit ${limit.transactionsPerSecond.toFixed(0)} tx/s`);
      log('hot, 2 instances…');
      hotCells.push(await hot(turnEnv, 2));
      log(`  ${hotCells[1].purchasesPerSecond.toFixed(0)} purchases/s`);
    }
  } finally {
    await redis.stop();
  }
  const result: AppBenchResult = {
    command: `npm run bench:app --${values.cells === ALL_CELLS.join(',') ? '' : ` --cells ${values.cells}`} --seconds ${env.seconds} --connections ${env.connections} --users ${env.users} --spike-connections ${env.spikeConnections} --spike-seconds ${env.spikeSeconds} --rounds ${rounds}${cells.has('join-work') ? ` --join-work-users ${joinWorkUsers}` : ''}${values['skip-profile'] ? ' --skip-profile' : ''}`,
    date: startedAt.toISOString(),
    machine: { cpu: cpus()[0]?.model.trim(), cores: cpus().length, node: process.version, loadStart, loadEnd: loadavg()[0] },
    env: { seconds: env.seconds, connections: env.connections, users: env.users, spikeConnections: env.spikeConnections, spikeSeconds: env.spikeSeconds, rounds },
    cpu,
    rounds: roundFigures,
    joinWork,
    profiled,
    limit,
    hot: hotCells,
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/app.json', JSON.stringify(result, null, 2));
  console.log(renderTables(result));
  if (joinWork) console.log(`\n${renderJoinWorkResult(joinWork)}`);
  if (ALL_CELLS.every((cell) => cells.has(cell))) {
    writeAppSection(result);
    log('wrote docs/BENCHMARKS.md and bench/results/app.json');
  } else {
    log('some cells only: wrote bench/results/app.json, not the docs');
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
