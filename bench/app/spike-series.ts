import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { startBenchServices } from './bench-services';
import { CpuCell, hotCell, spikeCell } from './cpu-cells';
import { buildBaseline, resolveCommit } from './baseline-build';

/**
 * The spike as issue 45 measured it, many times over:
 * `NODE_ENV=development bash scripts/run-ts.sh bench/app/spike-series.ts --runs 10` (after `npm run build`).
 * Each run is the hot purchase at the usual connections (its rate the yardstick) right before the
 * spike on one hot product, each on a fresh instance, both on this machine's cores beside the load
 * generator. Prints one line per run: the 100-connection rate, the spike's goodput (201s per
 * second) and its share of that rate, the share of 503s, p99 and the longest answer, the machine's
 * load average before the run. A spike collapses when goodput falls under `--floor` (80%) of the
 * rate before it. `--other-node <path>` runs every other run on that node binary; `--ref <git-ref>`
 * runs a build of that commit instead of this checkout's dist (see baseline-build.ts).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10' },
      floor: { type: 'string', default: '0.8' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '100' },
      users: { type: 'string', default: '50000' },
      'spike-connections': { type: 'string', default: '4000' },
      'spike-seconds': { type: 'string', default: '12' },
      // Alternate the runs with this node binary (e.g. /usr/bin/node, Node 20): the same build and
      // the same neighbours on the machine, so a difference between the two is Node's.
      'other-node': { type: 'string' },
      // A commit to build and run instead of this checkout's dist (see baseline-build.ts).
      ref: { type: 'string' },
    },
  });
  const { env, stop } = await startBenchServices({
    seconds: Number(values.seconds),
    connections: Number(values.connections),
    users: Number(values.users),
    spikeConnections: Number(values['spike-connections']),
    spikeSeconds: Number(values['spike-seconds']),
    profile: false,
    apiEntry:
      values.ref === undefined
        ? undefined
        : buildBaseline(resolveCommit(values.ref), (line) => console.log(`[bench] ${line}`)),
  });
  const floor = Number(values.floor);
  const perSecond = (cell: CpuCell) => (cell.load.byStatus['201'] ?? 0) / cell.load.seconds;
  let collapsed = 0;
  console.log(
    `node ${process.version}; ${env.spikeConnections} connections for ${env.spikeSeconds} s after ${env.connections} for ${env.seconds} s`,
  );
  const nodes = [process.execPath, ...(values['other-node'] ? [values['other-node']] : [])];
  const version = (node: string) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  console.log(
    '| run | node | hot at 100 connections (201/s) | spike goodput (201/s) | of the hot rate | 503 share | p99 / max | load avg (1 min) before | verdict |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---|---:|---|');
  try {
    for (let run = 1; run <= Number(values.runs); run++) {
      const load = loadavg()[0];
      const node = nodes[(run - 1) % nodes.length];
      const hot = await hotCell({ ...env, apiNode: node });
      const spike = await spikeCell({ ...env, apiNode: node });
      const share = perSecond(spike) / perSecond(hot);
      const refused = Object.entries(spike.load.byAnswer)
        .filter(([answer]) => answer.startsWith('503'))
        .reduce((sum, [, count]) => sum + count, 0);
      const ok = share >= floor && spike.violations.length === 0;
      if (!ok) collapsed++;
      const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
      console.log(
        `| ${run} | ${version(node)} | ${perSecond(hot).toFixed(0)} | ${perSecond(spike).toFixed(0)} | ${pct(share)} | ${pct(refused / Math.max(1, spike.load.requests))} | ${spike.load.p99.toFixed(0)} / ${spike.load.max.toFixed(0)} ms | ${load.toFixed(1)} | ${ok ? 'held' : 'COLLAPSED'}${spike.violations.length ? `, ${spike.violations.length} violations` : ''} |`,
      );
    }
  } finally {
    await stop();
  }
  console.log(`${collapsed} of ${values.runs} spikes under ${(100 * floor).toFixed(0)}% of the 100-connection rate`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
