import { breakdownTable, goalsTable, resultsTable, sweepTable, uncontendedCpuTable } from './report-markdown';
import { fmt } from './report-format';
import { BenchReport } from './report-types';
import { CellResult, fencedFloors } from './cell-result';
import { median } from './stats';

/** The whole `## Lock library` section of docs/BENCHMARKS.md. */
export function renderSection(r: BenchReport): string {
  const m = r.machine;
  const c = r.config;
  const limit = 1000 / (c.criticalMs + r.roundTrip.start.medianMs);
  const tuned = r.sweep.map((s) => `- ${s.kind}: \`${fmt.settings(s.chosen)}\``).join('\n');
  return `## Lock library (npm run bench:lock)

Command: \`${r.command}\` · date: ${r.date} · run took ${r.durationS.toFixed(0)} s

Machine: ${m.cpuModel}, ${m.cores} cores (shared with other engineers' test runs; 1-min load ${m.loadStart.toFixed(2)} at start, ${m.loadEnd?.toFixed(2)} at end), ${m.memoryGb} GB, Node ${m.node}, Redis ${m.redis} (a private \`redis-server\` on a free loopback port, no persistence).
Absolute numbers drift with the shared load; compare ratios within one run.

Round trip (${r.roundTrip.start.samples} sequential PINGs, median): ${fmt.ms(r.roundTrip.start.medianMs)} ms at start, ${fmt.ms(r.roundTrip.end.medianMs)} ms at end.
Limit for (b)/(c) = 1 / (${c.criticalMs} ms + RTT) = ${fmt.num(limit)} sections/s; for (a) the "% of limit" is of 1 / (2·RTT), the two-round-trip floor.

How it is measured:
- (a) one sequential loop, acquire + release on a fresh key each time; contenders take turns in ${c.uncontendedSliceMs} ms slices over ${c.uncontendedRounds} rounds, in a shuffled order per round (no contender always follows the same one; the raw fenced floor, our library, redis-semaphore (defaults) and a second instance of the floor back to back, rotated one place each round, since the machine drifts by more than the goals' margin over a round), so drift hits all alike; the floor's second instance is an A/A control: its ratio to the first, 1.00× on a quiet machine, is how finely the run resolves the goals' ratios; a minor GC before every slice, so each pays for its own garbage only; each after one untimed warm-up slice of at least ${c.uncontendedSliceMs} ms and ${c.uncontendedWarmupCycles} cycles (the sweep has already warmed the peers' code, not ours; V8 optimises our acquire path after 2,000–3,000 cycles). "wait" = acquire latency.
- (b) ${c.workers} workers in one process share one contender instance (one ioredis connection) and hammer one key; ${c.criticalMs} ms **busy-wait** critical section (CPU-bound, exact), then release, then want the lock again at once. ${c.cellMs / 1000} s window.
- (c) the same, ${c.workers} workers **in total** split over ${c.processes} child processes (13/13/12/12), each process with its own contender instance.
- wait = from wanting the lock to holding it, over every acquisition that started in the window (waits still running at its end are followed to completion; a wait that ends in a give-up after the window counts at its length). Acquires that throw (retries exhausted) are retried by the worker and the wait keeps running; they are counted under "failed acquires".
- handoff = share of consecutive sections (ordered by acquire time; across processes by the machine's monotonic clock) whose holder differs from the previous holder.
- idle gap = from one holder calling release to the next holder holding the lock (median); the limit assumes one round trip. hold mean = measured section length; above 1 ms when the shared CPU preempted the worker mid-section.
- cmds/section (sent) = commands the contender's connections sent (counted on the ioredis client, subscriber connections included) ÷ acquire+release cycles; server cmds/section = Redis \`total_commands_processed\` delta, which also counts commands run inside Lua scripts, minus the harness's own INFO commands.
- overlaps: (b) an in-process in-flight counter checked on entry; (c) after the run, from the merged section records of all processes: a section that began before an earlier one began its release (process clocks agree to microseconds; 0.05 ms slack). No probe runs inside the section, so it is exactly the 1 ms busy-wait.
- raw floor = \`SET key token NX PX ttl\` + a Lua compare-and-delete, retrying SET the moment a "held" reply arrives. Raw fenced floor ((a) only) = the same with the acquire as one script that also \`INCR\`s a fence counter: what handing out a fence in the acquire's atomic step (requirement 2) costs by itself.
- tuned settings: a ${c.sweepMs / 1000} s scenario (b) run per candidate, the one with most sections/s wins; TTL ${c.ttlMs} ms everywhere.
- (a)'s cycle alone, for a quick comparison or a CPU profile: \`node --cpu-prof -r ts-node/register/transpile-only -r tsconfig-paths/register bench/lock/profile-uncontended.ts ours,semaphore,rawFenced 5 5000\` (contenders, rounds, cycles per slice; medians of the slices).

Chosen tuned settings:
${tuned}

${resultsTable(r.cells, r.goals)}

Goals, for our library:

${goalsTable(r.goals)}
${fencedFloorLine(r)}
Where the time of (a) goes, per acquire+release (× the raw floor's): CPU in this process (\`process.cpuUsage\`: the contender's code, the driver, the socket's system calls) and in Redis (\`INFO cpu\`), and of Redis's, the time it spent running the commands the contender sent (\`INFO commandstats\`: a script with its inner calls; the rest of Redis's CPU is its socket work). These drift far less than wall time on this shared VM; the rest of the wall time is waiting on the network stack and wake-ups.

${uncontendedCpuTable(r.cells)}

Where our library's (and the floor's) commands go, per acquire+release:

${breakdownTable(r.cells)}

<details><summary>Tuning sweep (scenario b, ${c.sweepMs / 1000} s per setting)</summary>

${sweepTable(r)}

</details>
${r.oursAvailable ? '' : '\n**Our library did not export `DistributedLock` at the time of this run; its rows and goals are missing.**\n'}`;
}

/** Our (a) time per op against the goals' two baselines, round by round. */
function fencedFloorLine(r: BenchReport): string {
  const a = (kind: string) => r.cells.find((cell) => cell.scenario === 'a' && cell.contender.kind === kind && !cell.contender.label.includes('tuned'));
  const [ours, semaphore] = [a('ours'), a('semaphore')];
  const { floor: fenced, control } = fencedFloors(r.cells);
  if (!ours || !fenced || !semaphore) return '';
  const resolution = control ? `; the floor's second instance (A/A control) against the first: ${roundRatios(control, fenced)}` : '';
  return `\nRound by round in (a) (each slice against the baseline's slice of the same round), our library against the raw fenced floor: ${roundRatios(ours, fenced)}; against redis-semaphore (defaults): ${roundRatios(ours, semaphore)}${resolution}.\n`;
}

/** Median and range of a contender's per-round time per op over the baseline's, same rounds. */
function roundRatios(cell: CellResult, baseline: CellResult): string {
  const mine = cell.sliceMsPerOp ?? [];
  const base = baseline.sliceMsPerOp ?? [];
  const ratios = mine.slice(0, base.length).map((ms, i) => ms / base[i]);
  if (ratios.length === 0) return 'n/a';
  return `median ${median(ratios).toFixed(3)}×, ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}× over ${ratios.length} rounds`;
}
