import { mulberry32 } from './seeded-random';

/**
 * Scenario (a)'s ratio of one contender's time per op to the baseline's, from their slices' times
 * per op (slice i of each ran in the same round), and a 95% bootstrap interval for it.
 *
 * Every slice lasts the same time, so a contender's overall time per op (total time over total
 * cycles, what the goal compares) is the harmonic mean of its slices' times per op. The interval
 * resamples whole rounds, keeping each round's pair together, which keeps the drift both slices of
 * a round shared out of the spread; it shows how far the point figure could move on another run
 * of the same rounds, not the run-to-run spread from the machine's state (see BENCHMARKS findings).
 */
export function roundRatioInterval(mine: readonly number[], base: readonly number[], draws = 4000, seed = 1): { ratio: number; low: number; high: number } {
  const rounds = Math.min(mine.length, base.length);
  if (rounds === 0) return { ratio: Number.NaN, low: Number.NaN, high: Number.NaN };
  const ratioOf = (picks: readonly number[]) => harmonicMean(picks.map((i) => mine[i])) / harmonicMean(picks.map((i) => base[i]));
  const all = Array.from({ length: rounds }, (_, i) => i);
  const random = mulberry32(seed);
  const ratios = Array.from({ length: draws }, () => ratioOf(all.map(() => Math.floor(random() * rounds)))).sort((a, b) => a - b);
  return { ratio: ratioOf(all), low: ratios[Math.floor(draws * 0.025)], high: ratios[Math.ceil(draws * 0.975) - 1] };
}

function harmonicMean(values: readonly number[]): number {
  return values.length / values.reduce((sum, v) => sum + 1 / v, 0);
}
