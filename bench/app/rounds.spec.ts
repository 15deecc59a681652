import type { CpuCell } from './cpu-cells';
import { median, rotate, summariseRounds } from './rounds';

const cell = (perCpuSecond: number, violations: string[] = []) => ({ name: 'c', perCpuSecond, violations }) as unknown as CpuCell;

describe('bench rounds', () => {
  it('takes the median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

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

  it('leaves the ratio out when the floor did not run', () => {
    const { rounds } = summariseRounds<'floor' | 'hot'>([{ hot: cell(10) }, { hot: cell(12) }], 'floor');
    expect(rounds.hot).toEqual({ perCpuSecond: [10, 12], vsFloor: undefined });
  });
});
