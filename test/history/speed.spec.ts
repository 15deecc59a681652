import { checkHistory } from '../../scripts/history/check-history';
import { parseHistory } from '../../scripts/history/format';
import { bigSale } from './speed-data';

/** CPU time, not wall time: the cores are shared with whatever else runs, and the figure is the checker's cost. */
function judgeSale(size: number): { cpuMs: number; wallMs: number; failed: [string, string | undefined][]; ops: number; orders: number } {
  const { log, orders } = bigSale(size);
  const text = log.toJsonl();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { meta: m, ops } = parseHistory(text);
  const check = checkHistory(m, ops, orders, { finalReadAtMs: Date.now(), require: ['all'] });
  const used = process.cpuUsage(cpu);
  const failed = check.rules.filter((r) => !r.ok).map((r): [string, string | undefined] => [r.id, r.examples[0] ?? r.unjudged[0]?.why]);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started, failed, ops: check.figures.ops, orders: check.figures.orders };
}

describe('the checker on a big history', () => {
  // Its CPU is printed, not bounded: how fast is a benchmark's to say (docs/BENCHMARKS.md, "History
  // checker"), and a jest worker sharing two cores with the others cannot hold an absolute figure.
  it('parses and judges 100,000 operations, every rule holding and judging', () => {
    const run = judgeSale(100_000);
    expect(run.failed).toEqual([]);
    expect(run.ops).toBe(100_000);
    process.stdout.write(`100,000 operations (${run.orders} orders): ${Math.round(run.cpuMs)} ms of CPU, ${Math.round(run.wallMs)} ms wall\n`);
  });

  it('takes time linear in the history: four times the operations, well under twelve times the CPU', () => {
    // A quadratic step would take sixteen times as long. Each size's figure is the least of three
    // runs: a shared machine (other jest workers, a major GC landing in one run) only ever adds
    // time, so the least is the checker's own cost; a single run once read 12.2 in CI.
    judgeSale(5_000);
    const leastCpuMs = (size: number) => Math.min(...[1, 2, 3].map(() => judgeSale(size).cpuMs));
    const small = leastCpuMs(25_000);
    const big = leastCpuMs(100_000);
    process.stdout.write(`25,000 operations: ${Math.round(small)} ms of CPU; 100,000: ${Math.round(big)} ms (least of three)\n`);
    expect(big / small).toBeLessThan(12);
  }, 60_000);
});
