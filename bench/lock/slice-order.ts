import { mulberry32 } from './seeded-random';

/**
 * The order in which contenders take their slices in one round of scenario (a): a permutation
 * shuffled from the round number (the same in every run). A fixed rotation would put every
 * contender after the same neighbour each round, so whatever one leaves behind (garbage to
 * collect, cold caches) would always land on the same other one.
 */
export function sliceOrder(count: number, round: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  const random = mulberry32(round + 1);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}
