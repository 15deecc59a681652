import { createHmac } from 'node:crypto';
import { QUICKNET_GENESIS_S, QUICKNET_PERIOD_S, QUICKNET_PUBLIC_KEY } from '../config/sale-beacon-config';
import { isRoundSignature, roundDueAt, roundTimeMs, shuffleSeedOf } from './beacon-round';

const quicknet = { publicKey: QUICKNET_PUBLIC_KEY, genesisS: QUICKNET_GENESIS_S, periodS: QUICKNET_PERIOD_S };
// Rounds 2 and 3 as drand quicknet published them (its /public/2 and /public/3): a fixture, not the network.
const ROUND_2 = 'b6b6a585449b66eb12e875b64fcbab3799861a00e4dbf092d99e969a5eac57dd3f798acf61e705fe4f093db926626807';
const ROUND_3 = 'b3fab6df720b68cc47175f2c777e86d84187caab5770906f515ff1099cb01e4deaa027075d860823e49477b93c72bd64';

describe('beacon rounds', () => {
  it("accepts quicknet's own signatures of its rounds", () => {
    expect(isRoundSignature(quicknet, 2, ROUND_2)).toBe(true);
    expect(isRoundSignature(quicknet, 3, ROUND_3)).toBe(true);
  });

  it("refuses a real signature of another round, another chain's key, and malformed points", () => {
    expect(isRoundSignature(quicknet, 2, ROUND_3)).toBe(false);
    expect(isRoundSignature({ ...quicknet, publicKey: 'a'.repeat(192) }, 3, ROUND_3)).toBe(false);
    expect(isRoundSignature(quicknet, 3, ROUND_3.slice(0, 94))).toBe(false);
    expect(isRoundSignature(quicknet, 3, 'f'.repeat(96))).toBe(false);
  });

  it('names the first round due at or after the start, never one published before it', () => {
    const genesisMs = QUICKNET_GENESIS_S * 1000;
    expect(roundDueAt(quicknet, genesisMs - 5000)).toBe(1);
    expect(roundDueAt(quicknet, genesisMs)).toBe(1);
    expect(roundDueAt(quicknet, genesisMs + 1)).toBe(2);
    expect(roundDueAt(quicknet, genesisMs + 3000)).toBe(2);
    for (const startMs of [genesisMs + 12_345_678, genesisMs + 3_000_000]) {
      const round = roundDueAt(quicknet, startMs);
      expect(roundTimeMs(quicknet, round)).toBeGreaterThanOrEqual(startMs);
      expect(roundTimeMs(quicknet, round - 1)).toBeLessThan(startMs);
    }
  });

  it('keys the shuffle by HMAC-SHA256(seed, signature), or by the seed alone in the fallback', () => {
    const seed = Buffer.alloc(32, 9);
    expect(shuffleSeedOf(seed, ROUND_3)).toEqual(
      createHmac('sha256', seed).update(Buffer.from(ROUND_3, 'hex')).digest(),
    );
    expect(shuffleSeedOf(seed, null)).toBe(seed);
  });
});
