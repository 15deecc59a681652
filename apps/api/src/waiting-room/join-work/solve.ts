/**
 * The client's half of a waiting room's join work (waitingRoom.joinWork): y = x^(2^T) mod N by T
 * modular squarings, one after the other. Each squaring needs the one before, so neither more
 * cores nor a GPU shorten one solve; only the server, which knows N's factors, has a shortcut.
 * Framework-free and dependency-free (BigInt), for scripts, tests and any client; the storefront
 * example carries the same dozen lines for browsers.
 */
export interface JoinWorkPuzzle {
  /** N, hex. */
  modulus: string;
  /** x, hex. */
  base: string;
  /** T. */
  squarings: number;
}

/** The solution, hex (lowercase, no prefix), as POST /products/:id/queue takes it in `work.solution`. */
export function solveJoinWork(puzzle: JoinWorkPuzzle): string {
  const n = BigInt(`0x${puzzle.modulus}`);
  let y = BigInt(`0x${puzzle.base}`) % n;
  for (let i = 0; i < puzzle.squarings; i++) y = (y * y) % n;
  return y.toString(16);
}
