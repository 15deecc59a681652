/**
 * The work a join needs past waitingRoom.joinsPerAddress: the first ticket over an address's cap
 * takes `first` squarings, each one more the address holds doubles it, up to `most` (the join's
 * script, scripts/join.ts, decides with the address's live tickets in hand). At the measured
 * pace (Node's BigInt, 1.1 µs a squaring on an idle core here, 3-4 µs on a busy one; a phone core
 * 3-5x an idle one): the 1st over takes 0.15-0.4 s, the 3rd 0.6-2 s, the 8th 18-60 s, each from
 * the 9th on 37 s-2 min (docs/API.md): neighbours behind one carrier NAT pay seconds, while
 * hundreds of accounts behind one address cost over half a core-minute each.
 */
export interface OverCapWork {
  first: number;
  most: number;
}

export const OVER_CAP_FIRST_SQUARINGS = 2 ** 17;
export const OVER_CAP_MOST_SQUARINGS = 2 ** 25;

/**
 * The ladder of a sale: for one that asks join work itself, starting at twice its own (a ticket
 * over the cap always costs more than one under it).
 */
export function overCapWork(saleSquarings: number | undefined): OverCapWork {
  const first = Math.max(OVER_CAP_FIRST_SQUARINGS, 2 * (saleSquarings ?? 0));
  return { first, most: Math.max(OVER_CAP_MOST_SQUARINGS, first) };
}

/** Whether T is a step of the ladder: first x 2^k below most, or most. Only these are served, so only these are taken. */
export function isOverCapStep(ladder: OverCapWork, squarings: number): boolean {
  for (let step = ladder.first; step < ladder.most; step *= 2) if (step === squarings) return true;
  return squarings === ladder.most;
}
