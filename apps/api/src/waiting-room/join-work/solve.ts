import { createHash, randomBytes } from 'node:crypto';

/**
 * The client's half of a waiting room's join work (waitingRoom.joinWork). The sale's challenge
 * (GET /products/:id/queue/challenge) is the same for every client in its minute; each client makes
 * its own puzzle from it: x = H(challenge, nonce, user id) mod N, with a nonce of its choosing and
 * its token's `sub`; the solution is y = x^(2^T) mod N by T modular squarings, one after the other.
 * Each squaring needs the one before, so neither more cores nor a GPU shorten one solve; only the
 * server, which knows N's factors, has a shortcut. For scripts, tests and any Node client; the
 * storefront example carries the same lines for browsers (WebCrypto's SHA-512).
 */
export interface JoinWorkPuzzle {
  /** The sale's challenge, as the route gave it. */
  challenge: string;
  /** N, hex. */
  modulus: string;
  /** T. */
  squarings: number;
}

/** A nonce: 16 to 43 base64url characters (the client's choice; 16 random bytes make 22). */
export const JOIN_WORK_NONCE = /^[A-Za-z0-9_-]{16,43}$/;

/** A fresh nonce for one join: 16 random bytes, 22 base64url characters. */
export const newJoinWorkNonce = (): string => randomBytes(16).toString('base64url');

/**
 * The puzzle's base and the solution's single-use name, from the challenge, the client's nonce and
 * the user id: the two halves of H = SHA-512 over "<challenge>\n<nonce>\n<user id>\n1" and "...\n2"
 * make 1024 bits, reduced mod N; the name is the first 16 bytes of the first half. A user id holds
 * no control character (auth/token-claims.ts) and the other two fields no newline, so the text
 * names its fields unambiguously.
 */
export function joinWorkBase(challenge: string, nonce: string, userId: string, n: bigint): { x: bigint; name: string } {
  const text = `${challenge}\n${nonce}\n${userId}\n`;
  const first = createHash('sha512').update(`${text}1`).digest();
  const second = createHash('sha512').update(`${text}2`).digest();
  return {
    x: BigInt(`0x${first.toString('hex')}${second.toString('hex')}`) % n,
    name: first.subarray(0, 16).toString('base64url'),
  };
}

/** The join's `work`: the challenge, a fresh nonce and the solution (hex, lowercase, no prefix). */
export function solveJoinWork(
  puzzle: JoinWorkPuzzle,
  userId: string,
  nonce = newJoinWorkNonce(),
): { challenge: string; nonce: string; solution: string } {
  const n = BigInt(`0x${puzzle.modulus}`);
  let y = joinWorkBase(puzzle.challenge, nonce, userId, n).x;
  for (let i = 0; i < puzzle.squarings; i++) y = (y * y) % n;
  return { challenge: puzzle.challenge, nonce, solution: y.toString(16) };
}
