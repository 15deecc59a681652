import { execFileSync } from 'node:child_process';
import { createDatabase } from '../../scripts/infra/databases';
import { ensurePostgres } from '../../scripts/infra/postgres';
import { RedisServerProcess } from '../../test/support/redis-server';
import { balancedSpikeCell, CpuBenchEnv, CpuCell, hotCell, liveCell, productReadCell, soldOutCell, spikeCell } from './cpu-cells';
import { joinCell, pollCell } from './waiting-room-cells';
import { abSample, AbSample, compareCell, renderAbTable, Side, sidesInRound } from './ab-compare';
import { buildBaseline, resolveCommit } from './baseline-build';
import { rotate } from './rounds';

const nodeVersion = (node: string): string => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();

/** The cells that start the app (the bare Fastify and Nest floors are the same code on both sides). */
const AB_CELLS: Record<string, (env: CpuBenchEnv) => Promise<CpuCell>> = {
  live: liveCell,
  product: productReadCell,
  soldout: soldOutCell,
  hot: hotCell,
  poll: pollCell,
  join: joinCell,
  spike: spikeCell,
  balanced: balancedSpikeCell,
};
export const AB_DEFAULT_CELLS = 'hot,soldout,live,spike';

export interface AbOptions {
  ref: string;
  cells: string[];
  rounds: number;
  /** A commit to build and run as the current side instead of this checkout's `dist` (`--current`). */
  currentRef?: string;
  /** The node binary that builds and runs the baseline's API (`--baseline-node`); the bench's own when omitted. */
  baselineNode?: string;
  /** The run's load settings; the database, Redis and API bundle are filled in per side. */
  load: Omit<CpuBenchEnv, 'databaseUrl' | 'redisUrl' | 'redisPid' | 'apiEntry' | 'profile'>;
}

/**
 * `npm run bench:app -- --baseline <ref>`: the chosen app cells of this checkout and of an earlier
 * commit, side by side in one run, so the machine's drift between runs stays out of the ratio.
 * Each side has its own fresh database (the baseline's migrations build its schema) and its own
 * Redis, so neither inherits the other's rows, keys or Postgres backends. Within a round every cell
 * runs on both sides back to back, the side that goes first swapping each round. Prints the table;
 * writes nothing into the docs.
 */
export async function runAb(options: AbOptions, log: (line: string) => void): Promise<void> {
  for (const cell of options.cells) if (!AB_CELLS[cell]) throw new Error(`--baseline compares the app's cells only (${Object.keys(AB_CELLS).join(', ')}), not ${cell}`);
  const sha = resolveCommit(options.ref);
  const baselineEntry = buildBaseline(sha, log, options.baselineNode);
  const currentSha = options.currentRef === undefined ? undefined : resolveCommit(options.currentRef);
  const currentEntry = currentSha === undefined ? undefined : buildBaseline(currentSha, log);
  const postgres = await ensurePostgres();
  const redis: Partial<Record<Side, RedisServerProcess>> = {};
  try {
    const envs = {} as Record<Side, CpuBenchEnv>;
    for (const side of ['current', 'baseline'] as const) {
      const server = (redis[side] = await RedisServerProcess.start());
      envs[side] = {
        ...options.load,
        databaseUrl: await createDatabase(postgres.url, side === 'current' ? 'flashsale_bench' : 'flashsale_bench_baseline', true),
        redisUrl: server.url,
        redisPid: server.pid!,
        profile: false,
        apiEntry: side === 'baseline' ? baselineEntry : currentEntry,
        apiNode: side === 'baseline' ? options.baselineNode : undefined,
      };
    }
    const pairs = new Map<string, Array<Record<Side, AbSample>>>(options.cells.map((cell) => [cell, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const cell of rotate(options.cells, round)) {
        const pair = {} as Record<Side, AbSample>;
        for (const side of sidesInRound(round)) {
          log(`${cell}, ${side}, round ${round + 1} of ${options.rounds}…`);
          const sample = abSample(await AB_CELLS[cell](envs[side]));
          log(`  ${sample.apiUsPerAnswer.toFixed(1)} µs per answer; Postgres ${sample.postgresUsPerPurchase?.toFixed(1) ?? '–'} µs per purchase; peak RSS ${sample.peakRssMb?.toFixed(0) ?? '–'} MB; violations ${sample.violations}`);
          pair[side] = sample;
        }
        pairs.get(cell)!.push(pair);
      }
    }
    const rows = options.cells.map((cell) => compareCell(cell, pairs.get(cell)!));
    const nodes = `current on Node ${process.version}, baseline on Node ${options.baselineNode ? nodeVersion(options.baselineNode) : process.version}`;
    const current = currentSha === undefined ? 'this checkout' : `${options.currentRef} (${currentSha.slice(0, 9)})`;
    console.log(`\ncurrent (${current}) against baseline ${options.ref} (${sha.slice(0, 9)}), ${nodes}, ${options.rounds} rounds of ${options.load.seconds} s at ${options.load.connections} connections; medians over rounds, ratio the median of each round's:\n`);
    console.log(renderAbTable(rows, sha.slice(0, 9)));
    log('--baseline: printed only; nothing written to docs/BENCHMARKS.md or bench/results');
  } finally {
    await Promise.all(Object.values(redis).map((server) => server.stop()));
  }
}
