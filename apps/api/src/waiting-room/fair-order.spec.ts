import { createHash, createHmac } from 'node:crypto';
import { rankPreQueue, saleSeed, seedCommitment } from './fair-order';

describe('fair order of the pre-queue', () => {
  const seed = saleSeed(Buffer.from('k'.repeat(32)), '42');

  it('places tickets by the hex HMAC-SHA256 of their id under the seed, ascending', () => {
    const count = 300;
    const places = rankPreQueue(seed, count);
    const expected = Array.from({ length: count }, (_, i) => String(i + 1)).sort((a, b) => {
      const ka = createHmac('sha256', seed).update(a).digest('hex');
      const kb = createHmac('sha256', seed).update(b).digest('hex');
      return ka < kb ? -1 : 1;
    });
    expected.forEach((ticketId, index) => expect(places.readUInt32BE((Number(ticketId) - 1) * 4)).toBe(index + 1));
  });

  it('commits to the seed with its SHA-256, and gives each product its own seed', () => {
    expect(seedCommitment(seed)).toBe(createHash('sha256').update(seed).digest('hex'));
    expect(saleSeed(Buffer.from('k'.repeat(32)), '43').equals(seed)).toBe(false);
  });
});
