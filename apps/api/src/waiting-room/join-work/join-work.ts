import { createHmac, createSecretKey, hkdfSync, KeyObject, timingSafeEqual } from 'node:crypto';
import { JOIN_WORK_NONCE, joinWorkBase } from './solve';
import { deriveTrapdoor, Trapdoor } from './trapdoor';

/** What GET /products/:id/queue/challenge answers: the same to every client of the sale in its minute. */
export interface JoinWorkChallenge {
  /** Opaque, signed: hand it back as it came, with the nonce and the solution. */
  challenge: string;
  /** N, hex. */
  modulus: string;
  /** T: the solution is x^(2^T) mod N, x made by the client (solve.ts, joinWorkBase). */
  squarings: number;
  /** Until when a solution of this challenge joins. */
  expiresAt: string;
}

/** Which sale's work: a challenge is good for this product, sale and T only. */
export interface JoinWorkSubject {
  productId: string;
  /** The sale's seed (sale-seeds.ts): N is the sale's. */
  seed: Buffer;
  squarings: number;
}

/** What a join sends as its work. */
export interface JoinWorkAnswer {
  challenge: string;
  nonce: string;
  solution: string;
}

/** A solution that checked out: its single-use name, to be claimed once (until the challenge expires). */
export interface CheckedWork {
  nonce: string;
  expiresAtMs: number;
}

/** A new challenge is served each minute; a solution of one joins until this long after its minute, plus this much per squaring (a slow phone's pace, about 4x a server core's). */
export const CHALLENGE_WINDOW_MS = 60_000;
export const CHALLENGE_TTL_MS = 120_000;
const MS_PER_SQUARING = 0.025;
// Instances' clocks may differ by this much: a minute's challenge served by one joins on all.
const CLOCK_SKEW_MS = 5_000;
const MAX_CHALLENGE = 256;
const MAX_SOLUTION = 1024;
const SIGNATURE_BYTES = 16;
const NUMBER = /^[1-9][0-9]{0,14}$/;
const HEX = /^(?:0x)?([0-9a-fA-F]+)$/;
const LEADING_ZEROS = /^0+/;
const MAX_TRAPDOORS = 1_000;
const MAX_SERVED = 1_000;

/**
 * The join's proof of work: a time-lock puzzle (Rivest, Shamir and Wagner, 1996). The client
 * computes y = x^(2^T) mod N by T squarings in a row; the server, which knows N's factors, computes
 * the answer mod its 320-bit factor p at once (2^T reduced mod p−1: one exponentiation,
 * Trapdoor.answerModP), which settles a solution as well as the whole answer would.
 *
 * The challenge is the sale's, not the user's: `w2.<product>.<minute ms>.<T>.<MAC>`, MAC =
 * HMAC-SHA256(key, N's id + "." + fields)[:16], one per minute, the same to every client and on
 * every instance. It costs nothing per client to hand out (the route answers it from memory, and a
 * cache may keep it for the rest of its minute), and nobody can know a minute's challenge before
 * the service serves it, so no work starts before the queue opens or outlives its expiry. Each
 * client binds its own puzzle to the challenge, its user and a nonce of its choosing (solve.ts:
 * x = H(challenge, nonce, user id) mod N), so a solution is good for one user, one product, one
 * sale and T; single use is the caller's part: the solution's name (H's first 16 bytes) is claimed
 * in Redis with the ticket (scripts/join.ts). Checking a join costs the server the exponentiation
 * (bench/join-work-cost.ts) and is done only after every cheap check passed.
 */
export class JoinWork {
  private readonly signing: KeyObject;
  private readonly trapdoors = new Map<string, Promise<Trapdoor>>();
  private readonly primes: Buffer;
  private served = new Map<string, JoinWorkChallenge>();

  constructor(waitingRoomKey: Buffer) {
    const derive = (info: string) =>
      Buffer.from(hkdfSync('sha256', waitingRoomKey, Buffer.alloc(0), `flash-sale join work: ${info}`, 32));
    this.signing = createSecretKey(derive('signature'));
    this.primes = derive('primes');
  }

  /** The sale's challenge of this minute (the same object for the whole minute). */
  async challenge(subject: JoinWorkSubject, nowMs: number): Promise<JoinWorkChallenge> {
    const trapdoor = await this.trapdoor(subject);
    const windowMs = nowMs - (nowMs % CHALLENGE_WINDOW_MS);
    const body = ['w2', subject.productId, String(windowMs), String(subject.squarings)].join('.');
    const cacheKey = `${trapdoor.id}.${body}`;
    let known = this.served.get(cacheKey);
    if (!known) {
      // Only this minute's challenges are served: the map starts again when it fills with old ones.
      if (this.served.size >= MAX_SERVED) this.served = new Map();
      known = {
        challenge: `${body}.${this.mac(body, trapdoor).toString('base64url')}`,
        modulus: trapdoor.modulusHex,
        squarings: subject.squarings,
        expiresAt: new Date(expiryOf(windowMs, subject.squarings)).toISOString(),
      };
      this.served.set(cacheKey, known);
    }
    return known;
  }

  /** The solution's name to claim when `work` solves an unexpired challenge of this sale for this user; null otherwise. */
  async check(subject: JoinWorkSubject, userId: string, work: JoinWorkAnswer, nowMs: number) {
    const { challenge, nonce, solution } = work;
    if (challenge.length > MAX_CHALLENGE || solution.length > MAX_SOLUTION || !JOIN_WORK_NONCE.test(nonce)) return null;
    const cut = challenge.lastIndexOf('.');
    const body = challenge.slice(0, cut);
    const fields = body.split('.');
    if (
      cut < 0 ||
      fields.length !== 4 ||
      fields[0] !== 'w2' ||
      fields[1] !== subject.productId ||
      !NUMBER.test(fields[2]) ||
      fields[3] !== String(subject.squarings)
    )
      return null;
    const windowMs = Number(fields[2]);
    const expiresAtMs = expiryOf(windowMs, subject.squarings);
    if (windowMs > nowMs + CLOCK_SKEW_MS || expiresAtMs <= nowMs) return null;
    const hex = HEX.exec(solution);
    if (!hex) return null;
    const trapdoor = await this.trapdoor(subject);
    const given = Buffer.from(challenge.slice(cut + 1), 'base64url');
    if (given.length !== SIGNATURE_BYTES || !timingSafeEqual(given, this.mac(body, trapdoor))) return null;
    // A number below N (hex strings of one length compare as their numbers do), judged by its residue mod p.
    const digits = hex[1].toLowerCase().replace(LEADING_ZEROS, '');
    const width = trapdoor.bytes * 2;
    if (digits.length > width || digits.padStart(width, '0') >= trapdoor.modulusHex.padStart(width, '0')) return null;
    const { x, name } = joinWorkBase(challenge, nonce, userId, trapdoor.n);
    if (trapdoor.modP(BigInt(`0x${digits || '0'}`)) !== trapdoor.answerModP(x, subject.squarings)) return null;
    return { nonce: name, expiresAtMs } satisfies CheckedWork;
  }

  /** The sale's trapdoor: derived once per product and instance (a few ms, off the event loop), then kept. */
  trapdoor(subject: Pick<JoinWorkSubject, 'productId' | 'seed'>): Promise<Trapdoor> {
    const cacheKey = `${subject.productId}|${subject.seed.toString('hex')}`;
    let known = this.trapdoors.get(cacheKey);
    if (!known) {
      if (this.trapdoors.size >= MAX_TRAPDOORS) this.trapdoors.clear();
      known = deriveTrapdoor(this.primes, subject.productId, subject.seed);
      this.trapdoors.set(cacheKey, known);
      known.catch(() => this.trapdoors.delete(cacheKey));
    }
    return known;
  }

  private mac(body: string, trapdoor: Trapdoor): Buffer {
    return createHmac('sha256', this.signing).update(`${trapdoor.id}.${body}`).digest().subarray(0, SIGNATURE_BYTES);
  }
}

/**
 * The T a challenge names (`w2.<product>.<minute>.<T>.<MAC>`), unchecked: which subject to check
 * its work against, for a sale that serves more than one T (a cap's ladder, over-cap-work.ts).
 */
export function challengeSquarings(challenge: string): number | undefined {
  const fields = challenge.split('.');
  return fields.length === 5 && NUMBER.test(fields[3]) ? Number(fields[3]) : undefined;
}

/**
 * The challenge route's Cache-Control: the answer is public and the same for everyone until its
 * minute ends, so a CDN or browser may keep it that long and spare the API the requests.
 */
export const challengeCacheControl = (nowMs: number): string =>
  `public, max-age=${Math.ceil((CHALLENGE_WINDOW_MS - (nowMs % CHALLENGE_WINDOW_MS)) / 1000)}`;

/** A challenge of the minute starting at windowMs joins until then. */
const expiryOf = (windowMs: number, squarings: number): number =>
  windowMs + CHALLENGE_WINDOW_MS + CHALLENGE_TTL_MS + Math.ceil(squarings * MS_PER_SQUARING);
