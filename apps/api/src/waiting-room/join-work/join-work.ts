import { createHmac, createSecretKey, hkdfSync, KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveTrapdoor, Trapdoor } from './trapdoor';

/** What POST /products/:id/queue/challenge answers. */
export interface JoinWorkChallenge {
  /** Opaque, signed: hand it back as it came with the solution. */
  challenge: string;
  /** N, hex. */
  modulus: string;
  /** x, hex. */
  base: string;
  /** T: the solution is x^(2^T) mod N. */
  squarings: number;
  expiresAt: string;
}

/** Who asks, for what: a challenge is good for this user, product, sale and T only. */
export interface JoinWorkSubject {
  productId: string;
  /** The sale's seed (sale-seeds.ts): N is the sale's. */
  seed: Buffer;
  /** The keyed tag of the user (TicketSigner.userTag). */
  userTag: string;
  squarings: number;
}

/** A solution that checked out: its nonce, to be claimed once (until the challenge expires). */
export interface CheckedWork {
  nonce: string;
  expiresAtMs: number;
}

/** A challenge lives this long, plus this much per squaring (a slow phone's pace, about 4x a server core's). */
export const CHALLENGE_TTL_MS = 120_000;
const MS_PER_SQUARING = 0.025;
const MAX_CHALLENGE = 256;
const MAX_SOLUTION = 1024;
const SIGNATURE_BYTES = 16;
const NONCE = /^[A-Za-z0-9_-]{16}$/;
const NUMBER = /^[1-9][0-9]{0,14}$/;
const HEX = /^(?:0x)?([0-9a-fA-F]+)$/;
const LEADING_ZEROS = /^0+/;
const MAX_TRAPDOORS = 1_000;

/**
 * The join's proof of work: a time-lock puzzle (Rivest, Shamir and Wagner, 1996). The client
 * computes y = x^(2^T) mod N by T squarings in a row; the server, which knows N's factors, knows
 * the answer mod p at once (2^T reduced mod p−1: one 512-bit exponentiation, Trapdoor.answerModP),
 * which settles a solution as well as the whole answer would.
 *
 * The server computes it when it issues the challenge and signs it into the challenge:
 * `w1.<product>.<user tag>.<expires ms>.<T>.<nonce>.<MAC>`, where MAC = HMAC-SHA256(key, N's id +
 * "." + fields + "." + (y mod p) in hex)[:16]. Checking a solution is then its residue mod p and one
 * HMAC (a few µs; bench/join-work-cost.ts), and the same MAC proves the challenge is one
 * this service issued, unaltered, for this user, sale, product and T, and not expired. Single use is the
 * caller's part: the nonce is claimed in Redis with the ticket (scripts/join.ts). The base x is an
 * HMAC of the fields, so nobody but the service chooses it.
 */
export class JoinWork {
  private readonly signing: KeyObject;
  private readonly bases: KeyObject;
  private readonly primes: Buffer;
  private readonly trapdoors = new Map<string, Promise<Trapdoor>>();

  constructor(waitingRoomKey: Buffer) {
    const derive = (info: string) =>
      Buffer.from(hkdfSync('sha256', waitingRoomKey, Buffer.alloc(0), `flash-sale join work: ${info}`, 32));
    this.signing = createSecretKey(derive('signature'));
    this.bases = createSecretKey(derive('base'));
    this.primes = derive('primes');
  }

  async challenge(subject: JoinWorkSubject, nowMs: number): Promise<JoinWorkChallenge> {
    const trapdoor = await this.trapdoor(subject);
    const expiresAtMs = nowMs + CHALLENGE_TTL_MS + Math.ceil(subject.squarings * MS_PER_SQUARING);
    const nonce = randomBytes(12).toString('base64url');
    const body = ['w1', subject.productId, subject.userTag, String(expiresAtMs), String(subject.squarings), nonce].join(
      '.',
    );
    const x = this.base(body, trapdoor);
    const yModP = trapdoor.answerModP(x, subject.squarings);
    return {
      challenge: `${body}.${this.mac(body, yModP, trapdoor).toString('base64url')}`,
      modulus: trapdoor.modulusHex,
      base: x.toString(16),
      squarings: subject.squarings,
      expiresAt: new Date(expiresAtMs).toISOString(),
    };
  }

  /** The nonce to claim when `work` is a solved, unexpired challenge of this subject; null otherwise. */
  async check(subject: JoinWorkSubject, work: { challenge: string; solution: string }, nowMs: number) {
    const { challenge, solution } = work;
    if (challenge.length > MAX_CHALLENGE || solution.length > MAX_SOLUTION) return null;
    const cut = challenge.lastIndexOf('.');
    const body = challenge.slice(0, cut);
    const fields = body.split('.');
    if (
      cut < 0 ||
      fields.length !== 6 ||
      fields[0] !== 'w1' ||
      fields[1] !== subject.productId ||
      fields[2] !== subject.userTag ||
      !NUMBER.test(fields[3]) ||
      Number(fields[3]) <= nowMs ||
      fields[4] !== String(subject.squarings) ||
      !NONCE.test(fields[5])
    )
      return null;
    const hex = HEX.exec(solution);
    if (!hex) return null;
    const trapdoor = await this.trapdoor(subject);
    // A number below N (hex strings of one length compare as their numbers do), judged by its residue mod p.
    const digits = hex[1].toLowerCase().replace(LEADING_ZEROS, '');
    const width = trapdoor.bytes * 2;
    if (digits.length > width || digits.padStart(width, '0') >= trapdoor.modulusHex.padStart(width, '0')) return null;
    const yModP = trapdoor.modP(BigInt(`0x${digits || '0'}`));
    const given = Buffer.from(challenge.slice(cut + 1), 'base64url');
    if (given.length !== SIGNATURE_BYTES || !timingSafeEqual(given, this.mac(body, yModP, trapdoor))) return null;
    return { nonce: fields[5], expiresAtMs: Number(fields[3]) } satisfies CheckedWork;
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

  /** x: 1024 bits of HMAC-SHA512 of the challenge's fields, reduced mod N. */
  private base(body: string, trapdoor: Trapdoor): bigint {
    const wide = Buffer.concat([
      createHmac('sha512', this.bases).update(`${body}|1`).digest(),
      createHmac('sha512', this.bases).update(`${body}|2`).digest(),
    ]);
    return BigInt(`0x${wide.toString('hex')}`) % trapdoor.n;
  }

  private mac(body: string, yModP: bigint, trapdoor: Trapdoor): Buffer {
    return createHmac('sha256', this.signing)
      .update(`${trapdoor.id}.${body}.${yModP.toString(16).padStart(trapdoor.primeHexWidth, '0')}`)
      .digest()
      .subarray(0, SIGNATURE_BYTES);
  }
}
