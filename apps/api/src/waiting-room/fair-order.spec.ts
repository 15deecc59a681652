import { createHash, createHmac, createSecretKey } from 'node:crypto';
import { drawSaleSeed } from '../sale-terms/sale-seed';
import { rankPreQueue, seedCommitment } from './fair-order';

describe('fair order of the pre-queue', () => {
  // A fixed seed, one under which 200,000 tickets include a pair whose HMACs share their first 32 bits.
  const seed = Buffer.from('1d9339729872c41bc3048bda9f03fb3b91363d7b0b4220806e1c4b1f299a46a8', 'hex');

  it('places tickets by the hex HMAC-SHA256 of their id under the seed, ascending', async () => {
    const count = 20_000;
    const places = await rankPreQueue(seed, count);
    const keyOf = new Map(
      Array.from({ length: count }, (_, i) => [
        String(i + 1),
        createHmac('sha256', seed)
          .update(String(i + 1))
          .digest('hex'),
      ]),
    );
    const expected = [...keyOf.keys()].sort((a, b) => (keyOf.get(a)! < keyOf.get(b)! ? -1 : 1));
    expect(expected.map((ticketId) => places.readUInt32BE((Number(ticketId) - 1) * 4))).toEqual(
      expected.map((_, index) => index + 1),
    );
  });

  it('orders tickets whose HMACs share their first 32 bits by the rest', async () => {
    // Among 200,000 tickets a few pairs share the first 32 bits; find such a pair under this seed.
    const count = 200_000;
    const byPrefix = new Map<string, number>();
    let pair: [number, number] | undefined;
    const seedKey = createSecretKey(seed); // imported once (Node 24 re-imports a Buffer key per HMAC)
    for (let n = 1; n <= count && !pair; n++) {
      const prefix = createHmac('sha256', seedKey).update(String(n)).digest('hex').slice(0, 8);
      if (byPrefix.has(prefix)) pair = [byPrefix.get(prefix)!, n];
      byPrefix.set(prefix, n);
    }
    expect(pair).toBeDefined();
    const places = await rankPreQueue(seed, pair![1]);
    const [a, b] = pair!.map((n) => ({
      key: createHmac('sha256', seed).update(String(n)).digest('hex'),
      place: places.readUInt32BE((n - 1) * 4),
    }));
    expect(Math.abs(a.place - b.place)).toBe(1);
    expect(a.key < b.key).toBe(a.place < b.place);
    // 200,000 HMACs and a ranking: seconds on a busy machine; the order is what is judged here.
  }, 20_000);

  it('commits to the seed with its SHA-256', () => {
    expect(seedCommitment(seed)).toBe(createHash('sha256').update(seed).digest('hex'));
  });

  it('draws each sale a seed of its own: 32 bytes, never the same twice', () => {
    const seeds = Array.from({ length: 1000 }, () => drawSaleSeed().toString('hex'));
    expect(seeds.every((hex) => hex.length === 64)).toBe(true);
    expect(new Set(seeds).size).toBe(seeds.length);
  });
});
