import { checkPrime, createDiffieHellman, createHash, createHmac, DiffieHellman } from 'node:crypto';

const PRIME_BITS = 512;

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
  private readonly exponents = new Map<number, DiffieHellman>();

  constructor(
    private readonly p: bigint,
    q: bigint,
  ) {
    this.n = p * q;
    this.modulusHex = this.n.toString(16);
    this.bytes = Math.ceil(this.modulusHex.length / 2);
    this.id = createHash('sha256').update(this.modulusHex).digest('hex').slice(0, 16);
    this.primeBytes = PRIME_BITS / 8;
  }

  /**
   * x^(2^T) mod p, the short way: with the exponent 2^T mod (p−1), one 512-bit exponentiation
   * (OpenSSL's BN_mod_exp behind a Diffie-Hellman object whose private key is the exponent, about
   * 10x BigInt's; one object per T). The answer mod p alone settles a solution: nobody without p
   * can find a number that agrees with x^(2^T) mod p other than by computing x^(2^T) mod N (T
   * squarings), and a guess agrees with it once in 2^511. The half mod q would double the
   * server's work and add nothing.
   */
  answerModP(x: bigint, squarings: number): bigint {
    return power(this.exponentFor(squarings), x % this.p, this.p, this.primeBytes, squarings);
  }

  /** A solution's residue mod p, to compare with answerModP. */
  modP(y: bigint): bigint {
    return y % this.p;
  }

  private exponentFor(squarings: number): DiffieHellman {
    let known = this.exponents.get(squarings);
    if (!known) {
      if (this.exponents.size >= 16) this.exponents.clear();
      known = exponentiator(this.p, squarings);
      this.exponents.set(squarings, known);
    }
    return known;
  }
}

/** The trapdoor of (key, product, seed): deterministic, and the same on every instance. */
export async function deriveTrapdoor(key: Buffer, productId: string, seed: Buffer): Promise<Trapdoor> {
  const drbg = new HmacDrbg(
    Buffer.concat([lengthPrefixed(Buffer.from('flash-sale join work v1')), lengthPrefixed(key)]),
    Buffer.concat([lengthPrefixed(Buffer.from(productId, 'utf8')), lengthPrefixed(seed)]),
  );
  const p = await primeFrom(drbg);
  let q = await primeFrom(drbg);
  while (q === p) q = await primeFrom(drbg);
  return new Trapdoor(p, q);
}

/** A 512-bit prime: a DRBG draw with its two top bits and its low bit set, then the next prime up. */
async function primeFrom(drbg: HmacDrbg): Promise<bigint> {
  const top = 3n << BigInt(PRIME_BITS - 2);
  let candidate = bytesToBigInt(drbg.generate(PRIME_BITS / 8)) | top | 1n;
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

/** A Diffie-Hellman object over `prime` whose private key is 2^T mod (prime−1): computeSecret(v) = v^(2^T) mod prime. */
function exponentiator(prime: bigint, squarings: number): DiffieHellman {
  const bytes = PRIME_BITS / 8;
  const dh = createDiffieHellman(bigIntToBytes(prime, bytes), Buffer.from([2]));
  dh.setPrivateKey(bigIntToBytes(modPow(2n, BigInt(squarings), prime - 1n), bytes));
  return dh;
}

/** v^(2^T) mod prime; OpenSSL refuses v ∈ {0, 1, prime−1} as a peer's key (chance 2^-510), so those take BigInt. */
function power(dh: DiffieHellman, v: bigint, prime: bigint, bytes: number, squarings: number): bigint {
  if (v > 1n && v < prime - 1n) {
    return bytesToBigInt(dh.computeSecret(bigIntToBytes(v, bytes)));
  }
  return modPow(v, modPow(2n, BigInt(squarings), prime - 1n), prime);
}
