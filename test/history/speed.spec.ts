import { checkHistory } from '../../scripts/history/check-history';
import { parseHistory } from '../../scripts/history/format';
import { bigSale } from './speed-data';

describe('the checker on a big history', () => {
  it('parses and judges 100,000 operations in under 3 s of CPU', () => {
    const { log, orders } = bigSale();
    const text = log.toJsonl();
    // CPU time, not wall time: the cores are shared with whatever else runs, and the figure is the checker's cost.
    const cpu = process.cpuUsage();
    const started = performance.now();
    const { meta: m, ops } = parseHistory(text);
    const check = checkHistory(m, ops, orders, { finalReadAtMs: Date.now(), require: ['all'] });
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    expect(check.rules.filter((r) => !r.ok).map((r) => [r.id, r.examples[0]])).toEqual([]);
    expect(check.figures.ops).toBe(100_000);
    process.stdout.write(`100,000 operations (${check.figures.orders} orders): ${Math.round(cpuMs)} ms of CPU, ${Math.round(performance.now() - started)} ms wall\n`);
    expect(cpuMs).toBeLessThan(3000);
  });
});
