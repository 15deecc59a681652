import { CellResult } from './cell-result';
import { checkGoals } from './goals';

const cell = (scenario: 'b' | 'c', kind: string, waitP99Ms: number): CellResult =>
  ({ scenario, contender: { kind, label: kind, settings: {} }, limitPerSec: 928, fractionOfLimit: 0.99, waitP99Ms, handoffShare: 1, overlaps: 0, clientCommandsPerSection: 1 }) as unknown as CellResult;

describe('checkGoals', () => {
  it('names the least mean wait any lock allows beside a p99 target', () => {
    // 50 workers and 1 ms sections: each waits for the 49 others' sections, even with free handoffs.
    const goals = checkGoals([cell('b', 'ours', 58.2), cell('b', 'semaphore', 512.4)]);
    const p99 = goals.find((g) => g.goal === 'wait p99 vs best peer' && g.scenario === 'b');
    expect(p99?.target).toBe("≤ 51.2 ms (best peer 512.4 ms / 10; no lock's mean wait is below 49.0 ms here)");
    expect(p99?.pass).toBe(false);
  });

  it('reports the fenced floor against its second instance beside the floor goal', () => {
    const a = (kind: string, label: string, perSec: number) => ({ scenario: 'a', contender: { kind, label, settings: {} }, perSec, clientCommandsPerSection: 2 }) as unknown as CellResult;
    const goals = checkGoals([a('rawFenced', 'floor', 1000), a('ours', 'ours', 900), a('semaphore', 'semaphore', 950), a('rawFenced', 'floor, again', 980)]);
    const floor = goals.find((g) => g.goal === 'uncontended speed vs raw fenced floor');
    // 1000 / 900 ops/s for ours; the first instance of the floor against the second: 1000 / 980.
    expect(floor?.measured).toBe('1.111× (900 vs 1000 ops/s; the floor against itself 1.020×)');
    expect(floor?.pass).toBe(false);
    expect(goals.find((g) => g.goal === 'uncontended speed vs redis-semaphore')?.measured).not.toContain('itself');
  });
});
