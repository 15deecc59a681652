import { mulberry32 } from './seeded-random';

/**
 * The order in which contenders take their slices in one round of scenario (a): a permutation
 * shuffled from the round number (the same in every run). A fixed rotation would put every
 * contender after the same neighbour each round, so whatever one leaves behind (cold caches)
 * would always land on the same other one.
 *
 * The first `group` contenders, those the goals compare (the fenced floor, our library,
 * redis-semaphore and the floor's A/A control), run back to back, rotated one place each round:
 * the machine drifts by more than the goals' margin over the few seconds a round takes, and
 * adjacent slices share its state.
 */
export function sliceOrder(count: number, round: number, group = 2): number[] {
  const size = Math.min(group, count);
  if (size < 2) return Array.from({ length: count }, (_, i) => i);
  const GROUP = -1;
  const units = [GROUP, ...Array.from({ length: count - size }, (_, i) => i + size)];
  const random = mulberry32(round + 1);
  for (let i = units.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [units[i], units[j]] = [units[j], units[i]];
  }
  const together = Array.from({ length: size }, (_, i) => (i + round) % size);
  return units.flatMap((unit) => (unit === GROUP ? together : [unit]));
}
