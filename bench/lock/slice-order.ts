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

/** A small seeded PRNG (mulberry32): reproducible orders, no dependency. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
