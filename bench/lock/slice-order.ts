import { mulberry32 } from './seeded-random';

/**
 * The order in which contenders take their slices in one round of scenario (a): a permutation
 * shuffled from the round number (the same in every run). A fixed rotation would put every
 * contender after the same neighbour each round, so whatever one leaves behind (cold caches)
 * would always land on the same other one.
 *
 * Contenders 0 and 1, the pair the goal compares (the raw floor and our library), run back to
 * back, each first in every other round: the machine drifts by more than the goal's margin over
 * the few seconds a round takes, and adjacent slices share its state.
 */
export function sliceOrder(count: number, round: number): number[] {
  if (count < 2) return Array.from({ length: count }, (_, i) => i);
  const PAIR = -1;
  const units = [PAIR, ...Array.from({ length: count - 2 }, (_, i) => i + 2)];
  const random = mulberry32(round + 1);
  for (let i = units.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [units[i], units[j]] = [units[j], units[i]];
  }
  const pair = round % 2 === 0 ? [0, 1] : [1, 0];
  return units.flatMap((unit) => (unit === PAIR ? pair : [unit]));
}
