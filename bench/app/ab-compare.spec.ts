import type { CpuCell } from './cpu-cells';
import { abSample, AbSample, compareCell, renderAbTable, sidesInRound } from './ab-compare';

const sample = (apiUsPerAnswer: number, extra: Partial<AbSample> = {}): AbSample => ({ apiUsPerAnswer, violations: 0, ...extra });

describe('bench A/B comparison', () => {
  it('swaps which side goes first every round', () => {
    expect([0, 1, 2, 3].map(sidesInRound)).toEqual([
      ['current', 'baseline'],
      ['baseline', 'current'],
      ['current', 'baseline'],
      ['baseline', 'current'],
    ]);
  });

  it('reads CPU per answer, Postgres per purchase and peak RSS from a cell', () => {
    const cell = { perCpuSecond: 4000, postgresCpuS: 0.5, peakRssMb: 300, load: { byStatus: { '201': 10_000 } }, violations: ['x'] } as unknown as CpuCell;
    expect(abSample(cell)).toEqual({ apiUsPerAnswer: 250, postgresUsPerPurchase: 50, peakRssMb: 300, violations: 1 });
    const refusals = { perCpuSecond: 5000, postgresCpuS: 0.1, load: { byStatus: { '409': 9 } }, violations: [] } as unknown as CpuCell;
    expect(abSample(refusals).postgresUsPerPurchase).toBeUndefined();
  });

  it('takes each side’s median and the median of the per-round ratios', () => {
    const row = compareCell('hot', [
      { current: sample(100, { postgresUsPerPurchase: 40 }), baseline: sample(200, { postgresUsPerPurchase: 40 }) },
      { current: sample(90, { postgresUsPerPurchase: 30 }), baseline: sample(100, { postgresUsPerPurchase: 60, violations: 2 }) },
      { current: sample(120, { postgresUsPerPurchase: 20 }), baseline: sample(150, { postgresUsPerPurchase: 40 }) },
    ]);
    expect(row.apiUs).toEqual({ current: 100, baseline: 150, ratio: 0.8, ratioMin: 0.5, ratioMax: 0.9 });
    expect(row.postgresUs).toMatchObject({ current: 30, baseline: 40, ratio: 0.5 });
    expect(row.peakRssMb).toBeUndefined();
    expect(row.violations).toEqual({ current: 0, baseline: 2 });
    expect(row.rounds).toBe(3);
  });

  it('prints one row per cell with dashes for figures a cell lacks', () => {
    const rows = [
      compareCell('live', [{ current: sample(50), baseline: sample(40) }]),
      compareCell('spike', [{ current: sample(300, { postgresUsPerPurchase: 10, peakRssMb: 250, purchasesPerSecond: 8000 }), baseline: sample(300, { postgresUsPerPurchase: 20, peakRssMb: 350, purchasesPerSecond: 10000 }) }]),
    ];
    const lines = renderAbTable(rows, 'b797504').split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe('| live (1) | 50.0 | 40.0 | 1.25 | – | – | – | – | – | – | – | – | 0 / 0 |');
    expect(lines[3]).toBe('| spike (1) | 300.0 | 300.0 | 1.00 | 10.0 | 20.0 | 0.50 | 250 | 350 | 8000 | 10000 | 0.80 | 0 / 0 |');
    for (const line of lines) expect(line.split('|')).toHaveLength(15);
  });
});
