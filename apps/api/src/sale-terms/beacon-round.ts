import { createHash, createHmac } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381.js';

/** The drand scheme the app verifies: BLS signatures on G1 over SHA-256(round), hashed to G1 per RFC 9380. */
export const BEACON_SCHEME = 'bls-unchained-g1-rfc9380';
const DST = 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_';
const G1_SIGNATURE_HEX = /^[0-9a-f]{96}$/;

/** A beacon chain as a sale's commitment names it. */
export interface BeaconChain {
  publicKey: string;
  genesisS: number;
  periodS: number;
}

/**
 * The round due at `startMs`: the first whose time (genesis + (round - 1) x period) is at or after
 * it. Not one before: its signature would be public while the pre-queue is still open, and whoever
 * knows the operator's secret could then pick ticket numbers that the shuffle puts first.
 */
export function roundDueAt(chain: BeaconChain, startMs: number): number {
  const periodMs = chain.periodS * 1000;
  const sinceGenesis = startMs - chain.genesisS * 1000;
  return sinceGenesis <= 0 ? 1 : Math.ceil(sinceGenesis / periodMs) + 1;
}

export const roundTimeMs = (chain: BeaconChain, round: number): number =>
  (chain.genesisS + (round - 1) * chain.periodS) * 1000;

/** What a drand chain signs for a round: SHA-256 of the round number as 8 bytes, big-endian. */
export function roundMessage(round: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(round));
  return createHash('sha256').update(bytes).digest();
}

/** Whether `signatureHex` is the chain's signature of `round`; never throws (a malformed point is false). */
export function isRoundSignature(chain: BeaconChain, round: number, signatureHex: string): boolean {
  if (!G1_SIGNATURE_HEX.test(signatureHex)) return false;
  try {
    const short = bls12_381.shortSignatures;
    return short.verify(
      Buffer.from(signatureHex, 'hex'),
      short.hash(roundMessage(round), DST),
      Buffer.from(chain.publicKey, 'hex'),
    );
  } catch {
    return false;
  }
}

/**
 * The start shuffle's key. With the round: HMAC-SHA256(key = the operator's seed, message = the
 * round's signature bytes), so the operator, who committed to the seed first, cannot steer it, and
 * the beacon alone does not give it. Without (the fallback, said as beacon MISSING): the seed itself.
 */
export function shuffleSeedOf(seed: Buffer, signatureHex: string | null): Buffer {
  if (signatureHex === null) return seed;
  return createHmac('sha256', seed).update(Buffer.from(signatureHex, 'hex')).digest();
}
