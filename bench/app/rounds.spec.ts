import type { CpuCell } from './cpu-cells';
import { median } from '../lock/stats';
import { rotate, summariseRounds } from './rounds';

const cell = (perCpuSecond: number, violations: string[] = []) => ({ name: 'c', perCpuSecond, violations }) as unknown as CpuCell;

describe('bench rounds', () => {
  it('rotates the cell order so that each round starts one further', () => {
    expect(rotate(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(rotate(['a', 'b', 'c'], 1)).toEqual(['b', 'c', 'a']);
    expect(rotate(['a', 'b', 'c'], 4)).toEqual(['b', 'c', 'a']);
    expect(rotate([], 2)).toEqual([]);
  });

  it('compares each round with its own floor and keeps the median round as the cell', () => {
    const { cells, rounds } = summariseRounds<'floor' | 'live'>(
      [
        { floor: cell(100), live: cell(50) },
        { floor: cell(50), live: cell(40) },
        { floor: cell(80), live: cell(44, ['lost a unit']) },
      ],
      'floor',
    );
    expect(rounds.live!.perCpuSecond).toEqual([50, 40, 44]);
    expect(rounds.live!.vsFloor).toEqual([0.5, 0.8, 0.55]);
    expect(median(rounds.live!.vsFloor!)).toBe(0.55);
    expect(cells.live!.perCpuSecond).toBe(44);
    expect(cells.floor!.perCpuSecond).toBe(80);
    expect(cells.live!.violations).toEqual(['lost a unit']);
  });

  it('keeps the lower middle round of an even count', () => {
    const { cells } = summariseRounds<'floor' | 'hot'>([{ hot: cell(10) }, { hot: cell(14) }, { hot: cell(12) }, { hot: cell(16) }], 'floor');
    expect(cells.hot!.perCpuSecond).toBe(12);
  });

  it('leaves the ratio out when the floor did not run', () => {
    const { rounds } = summariseRounds<'floor' | 'hot'>([{ hot: cell(10) }, { hot: cell(12) }], 'floor');
    expect(rounds.hot).toEqual({ perCpuSecond: [10, 12], vsFloor: undefined });
  });
});
