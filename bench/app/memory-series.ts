import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { API_NODE_FLAGS } from '../../scripts/infra/api-process';
import { startBenchServices } from './bench-services';
import { CpuBenchEnv, CpuCell, hotCell, spikeCell } from './cpu-cells';
import { nodeClientOverloadCell } from './node-client-overload';

const CELLS: Record<string, (env: CpuBenchEnv) => Promise<CpuCell>> = {
  overload: nodeClientOverloadCell,
  spike: spikeCell,
  // The hot purchase at 100 connections: what a set costs per answer when nothing waits long.
  hot: hotCell,
};

/**
 * The API's peak memory under a crowd, per set of V8 flags, in one run:
 * `npm run build && NODE_ENV=development bash scripts/run-ts.sh bench/app/memory-series.ts --runs 3`
 * Each run starts a fresh instance per flag set and cell (`overload`: a Node client holding 2,000
 * sockets on one hot product; `spike`: wrk's 4,000 connections on one; `hot`, when named: wrk's
 * 100), the sets taking turns in another order each run. Prints a row per cell and set: goodput
 * (201s per second), peak RSS (VmHWM), API CPU per answer, p99 / max. `--flags=` (with the `=`,
 * as its values start with dashes) lists sets separated by `;`, each a space-separated list of
 * node flags (`npm start`'s, API_NODE_FLAGS, when omitted; an empty set runs none); `--entry` runs
 * another build's main.js than this checkout's dist.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      cells: { type: 'string', default: 'overload,spike' },
      flags: { type: 'string', default: API_NODE_FLAGS.join(' ') },
      users: { type: 'string', default: '50000' },
      'spike-connections': { type: 'string', default: '4000' },
      seconds: { type: 'string', default: '12' },
      entry: { type: 'string' },
    },
  });
  const cells = values.cells.split(',');
  for (const cell of cells)
    if (!CELLS[cell]) throw new Error(`unknown cell ${cell}; cells: ${Object.keys(CELLS).join(', ')}`);
  const flagSets = values.flags.split(';').map((set) => set.trim().split(/\s+/).filter(Boolean));
  const { env, stop } = await startBenchServices({
    seconds: Number(values.seconds),
    connections: 100,
    users: Number(values.users),
    spikeConnections: Number(values['spike-connections']),
    spikeSeconds: Number(values.seconds),
    profile: false,
    apiEntry: values.entry === undefined ? undefined : resolve(values.entry),
  });
  console.log(
    `node ${process.version}; ${values.seconds} s per cell; flag sets: ${flagSets.map((set) => `[${set.join(' ')}]`).join(', ')}`,
  );
  console.log(
    '| run | cell | V8 flags | goodput (201/s) | other answers | peak RSS (MB) | API µs per answer | p99 / max | load avg (1 min) before |',
  );
  console.log('|---:|---|---|---:|---|---:|---:|---|---:|');
  try {
    for (let run = 1; run <= Number(values.runs); run++) {
      // Each run starts with another set, so neither always follows the other's load.
      const order = flagSets.map((_, i) => flagSets[(i + run - 1) % flagSets.length]);
      for (const cell of cells) {
        for (const flags of order) {
          const before = loadavg()[0];
          const result = await CELLS[cell]({ ...env, apiFlags: flags });
          const created = result.load.byStatus['201'] ?? 0;
          const others = Object.entries(result.load.byAnswer)
            .filter(([answer]) => answer !== '201')
            .map(([answer, count]) => `${answer}: ${count}`)
            .join(', ');
          const violations = result.violations.length ? `, ${result.violations.length} VIOLATIONS` : '';
          console.log(
            `| ${run} | ${cell} | ${flags.join(' ') || '(none)'} | ${(created / result.load.seconds).toFixed(0)} | ${others || '–'}${violations} | ${result.peakRssMb?.toFixed(0) ?? '–'} | ${((result.serverCpuS / Math.max(1, result.load.requests)) * 1e6).toFixed(0)} | ${result.load.p99.toFixed(0)} / ${result.load.max.toFixed(0)} ms | ${before.toFixed(1)} |`,
          );
        }
      }
    }
  } finally {
    await stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
