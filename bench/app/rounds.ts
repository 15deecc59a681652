import type { CpuCell } from './cpu-cells';
import { median } from '../lock/stats';

/** A cell's figures over the rounds of one run. */
export interface RoundFigures {
  /** Answers per server CPU-second, one per round, in round order. */
  perCpuSecond: number[];
  /** Each round's answers per CPU-second divided by the floor's of the same round. */
  vsFloor?: number[];
}

/** The list started at its `round`-th item, so that no item always runs right after the same one. */
export function rotate<T>(items: readonly T[], round: number): T[] {
  if (items.length === 0) return [];
  const start = round % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

/**
 * Folds the rounds into one cell per key: the round with the median answers per CPU-second stands
 * for the cell (its latencies, answers and profile of CPU), every round's invariant violations are
 * kept, and each round's ratio to that round's floor is recorded, since the machine drifts between
 * rounds by more than the goals' margins.
 */
export function summariseRounds<K extends string>(byRound: Array<Partial<Record<K, CpuCell>>>, floorKey: K): { cells: Partial<Record<K, CpuCell>>; rounds: Partial<Record<K, RoundFigures>> } {
  const cells: Partial<Record<K, CpuCell>> = {};
  const rounds: Partial<Record<K, RoundFigures>> = {};
  const keys = [...new Set(byRound.flatMap((round) => Object.keys(round) as K[]))];
  for (const key of keys) {
    const runs = byRound.map((round) => round[key]).filter((cell): cell is CpuCell => cell !== undefined);
    const perCpuSecond = runs.map((cell) => cell.perCpuSecond);
    // The nearest-rank median is one of the rounds (the lower middle one of an even count).
    const middle = median(perCpuSecond);
    const representative = runs.find((cell) => cell.perCpuSecond === middle)!;
    cells[key] = { ...representative, violations: runs.flatMap((cell) => cell.violations) };
    const vsFloor = byRound.flatMap((round) => {
      const cell = round[key];
      const floor = round[floorKey];
      return cell && floor && floor.perCpuSecond > 0 ? [cell.perCpuSecond / floor.perCpuSecond] : [];
    });
    rounds[key] = { perCpuSecond, vsFloor: vsFloor.length ? vsFloor : undefined };
  }
  return { cells, rounds };
}
