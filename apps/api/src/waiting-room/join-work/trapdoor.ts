import { checkPrime, constants, createHash, createHmac, createPublicKey, KeyObject, publicEncrypt } from 'node:crypto';

/**
 * N = p·q is 1024 bits, as a client squares it; p, the prime the server checks by, is the shorter
 * factor. A check costs one exponentiation mod p, so p's length sets the server's cost (320 bits:
 * 27 µs on this project's host against 45 µs at 512, bench/join-work-cost.ts), while N's length
 * sets the client's. Finding p without the key means factoring N: the number field sieve's cost
 * follows N's 1,024 bits, out of reach, and the one method a short factor helps, the elliptic
 * curve method, has never found a factor of more than 83 decimal digits (p has 96). Each sale
 * draws a new N.
 */
const CHECK_PRIME_BITS = 320;
const COFACTOR_BITS = 704;

/**
 * A sale's join-work modulus N = p·q and its trapdoor (p and q), the same on every instance
 * without being stored anywhere: p and q are drawn by an HMAC-DRBG (NIST SP 800-90A, HMAC-SHA256)
 * seeded with the waiting room's key, the product id and the sale's seed (the 32 random bytes of
 * its pre-queue shuffle), then searched upward for a prime. The seed is published at the sale's
 * start, so the key alone keeps p and q secret; a new sale draws a new seed and so a new N.
 */
export class Trapdoor {
  readonly n: bigint;
  /** N, lowercase hex, as the challenge route shows it. */
  readonly modulusHex: string;
  /** N's length in bytes: solutions are compared in this many bytes of hex. */
  readonly bytes: number;
  /** A short name of N (hex of 64 bits of its SHA-256), signed into challenges: a challenge of another sale never passes. */
  readonly id: string;
  private readonly primeBytes: number;
  private readonly exponents = new Map<number, KeyObject>();

  constructor(
    /** The check prime: the secret, never shown outside the process. */
    readonly p: bigint,
    q: bigint,
  ) {
    this.n = p * q;
    this.modulusHex = this.n.toString(16);
    this.bytes = Math.ceil(this.modulusHex.length / 2);
    this.id = createHash('sha256').update(this.modulusHex).digest('hex').slice(0, 16);
    this.primeBytes = Math.ceil(p.toString(16).length / 2);
  }

  /**
   * x^(2^T) mod p, the short way: with the exponent 2^T mod (p−1), one exponentiation mod p. It is
   * OpenSSL's, as the public operation of an RSA key whose "modulus" is p and whose "exponent" is
   * that number (raw, no padding: m^e mod n is all it computes), about 10x BigInt's; one key per
   * T. The answer mod p alone settles a solution: nobody without p can find a number that agrees
   * with x^(2^T) mod p other than by computing x^(2^T) mod N (T squarings), and a guess agrees
   * with it once in 2^319. The half mod q would cost the server more and add nothing.
   */
  answerModP(x: bigint, squarings: number): bigint {
    const key = this.exponentFor(squarings);
    const input = bigIntToBytes(x % this.p, this.primeBytes);
    return bytesToBigInt(publicEncrypt({ key, padding: constants.RSA_NO_PADDING }, input));
  }

  /** A solution's residue mod p, to compare with answerModP. */
  modP(y: bigint): bigint {
    return y % this.p;
  }

  private exponentFor(squarings: number): KeyObject {
    let known = this.exponents.get(squarings);
    if (!known) {
      if (this.exponents.size >= 16) this.exponents.clear();
      known = exponentiator(this.p, this.primeBytes, squarings);
      this.exponents.set(squarings, known);
    }
    return known;
  }
}

/** The trapdoor of (key, product, seed): deterministic, and the same on every instance. */
export async function deriveTrapdoor(key: Buffer, productId: string, seed: Buffer): Promise<Trapdoor> {
  const drbg = new HmacDrbg(
    Buffer.concat([lengthPrefixed(Buffer.from('flash-sale join work v2')), lengthPrefixed(key)]),
    Buffer.concat([lengthPrefixed(Buffer.from(productId, 'utf8')), lengthPrefixed(seed)]),
  );
  const p = await primeFrom(drbg, CHECK_PRIME_BITS);
  const q = await primeFrom(drbg, COFACTOR_BITS);
  return new Trapdoor(p, q);
}

/** A prime of `bits` bits: a DRBG draw with its two top bits and its low bit set, then the next prime up. */
async function primeFrom(drbg: HmacDrbg, bits: number): Promise<bigint> {
  const top = 3n << BigInt(bits - 2);
  let candidate = bytesToBigInt(drbg.generate(bits / 8)) | top | 1n;
  // checkPrime runs in libuv's pool (trial division, then Miller-Rabin): the event loop stays free.
  while (!(await isPrime(candidate))) candidate += 2n;
  return candidate;
}

const isPrime = (candidate: bigint): Promise<boolean> =>
  new Promise((resolve, reject) => checkPrime(candidate, (error, prime) => (error ? reject(error) : resolve(prime))));

/** HMAC_DRBG with SHA-256 (SP 800-90A §10.1.2), no reseeding: it draws a handful of primes, once. */
export class HmacDrbg {
  private k: Buffer = Buffer.alloc(32, 0);
  private v: Buffer = Buffer.alloc(32, 1);

  constructor(entropy: Buffer, nonce: Buffer, personalization: Buffer = Buffer.alloc(0)) {
    this.update(Buffer.concat([entropy, nonce, personalization]));
  }

  generate(bytes: number): Buffer {
    const out: Buffer[] = [];
    for (let length = 0; length < bytes; length += 32) {
      this.v = hmac(this.k, this.v);
      out.push(this.v);
    }
    this.update(Buffer.alloc(0));
    return Buffer.concat(out).subarray(0, bytes);
  }

  private update(provided: Buffer): void {
    this.k = hmac(this.k, Buffer.concat([this.v, Buffer.from([0]), provided]));
    this.v = hmac(this.k, this.v);
    if (provided.length === 0) return;
    this.k = hmac(this.k, Buffer.concat([this.v, Buffer.from([1]), provided]));
    this.v = hmac(this.k, this.v);
  }
}

const hmac = (key: Buffer, data: Buffer): Buffer => createHmac('sha256', key).update(data).digest();

function lengthPrefixed(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

export const bytesToBigInt = (bytes: Buffer): bigint => BigInt(`0x${bytes.toString('hex') || '0'}`);

export function bigIntToBytes(value: bigint, length: number): Buffer {
  return Buffer.from(value.toString(16).padStart(length * 2, '0'), 'hex');
}

/** base^exponent mod modulus, square-and-multiply (BigInt): for the few exponentiations off the hot path. */
export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

/** An RSA public key over `prime` whose exponent is 2^T mod (prime−1): its raw public operation on v is v^(2^T) mod prime. */
function exponentiator(prime: bigint, bytes: number, squarings: number): KeyObject {
  const exponent = modPow(2n, BigInt(squarings), prime - 1n);
  const jwkNumber = (value: bigint) => bigIntToBytes(value, bytes).toString('base64url');
  return createPublicKey({ key: { kty: 'RSA', n: jwkNumber(prime), e: jwkNumber(exponent) }, format: 'jwk' });
}
