import { createHash, createHmac, createSecretKey } from 'node:crypto';

/**
 * The start-of-sale shuffle of the pre-queue, which anyone can check: each pre-queue ticket is
 * ranked by the lowercase hex of HMAC-SHA256(key = seed bytes, message = ticketId), ascending.
 * The seed is a sale's own 32 random bytes, drawn when its waiting room is created
 * (sale-terms/sale-seed.ts), so it is fixed before the first ticket is taken (its SHA-256 is
 * published from the pre-queue's opening) and cannot be chosen later to favour anyone, nor
 * foretold from another sale; it is published itself once the sale starts.
 */
export const seedCommitment = (seed: Buffer): string => createHash('sha256').update(seed).digest('hex');

/** The public id of ticket number n: its decimal number (unique per product). */
export const ticketIdOf = (n: number): string => String(n);

export const shuffleKey = (seed: Buffer, ticketId: string): string =>
  createHmac('sha256', seed).update(ticketId, 'utf8').digest('hex');

/** Tickets keyed per turn of the event loop: the shuffle of a large pre-queue never holds the loop for long. */
const CHUNK = 5000;
const INDEX_BITS = 2 ** 21;

/**
 * Places of pre-queue tickets 1..count: a buffer of 4-byte big-endian places, ticket n at offset
 * 4(n-1). Hex strings of equal length compare like the numbers they spell, so the contract's
 * order is that of the HMACs as big-endian numbers. To sort 200,000 tickets without holding the
 * event loop, each is keyed by the HMAC's first 32 bits with its index in the low 21 bits of one
 * double (exact below 2^53) and sorted natively; tickets whose first 32 bits tie are then put in
 * the order of their whole HMACs.
 */
export async function rankPreQueue(seed: Buffer, count: number): Promise<Buffer> {
  if (count >= INDEX_BITS)
    throw new Error(`a pre-queue of ${count} tickets is more than this shuffle supports (${INDEX_BITS - 1})`);
  const keys = new Float64Array(count);
  // A KeyObject, imported once: Node 24 imports a Buffer key again on every createHmac (4-5x the cost).
  const seedKey = createSecretKey(seed);
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
    keys[i] =
      createHmac('sha256', seedKey)
        .update(ticketIdOf(i + 1), 'utf8')
        .digest()
        .readUInt32BE(0) *
        INDEX_BITS +
      i;
  }
  keys.sort();
  const order = Array.from(keys, (key) => key % INDEX_BITS);
  for (let start = 0; start < count;) {
    let end = start + 1;
    while (end < count && Math.floor(keys[end] / INDEX_BITS) === Math.floor(keys[start] / INDEX_BITS)) end++;
    if (end - start > 1) {
      const tied = order
        .slice(start, end)
        .sort((a, b) => compareHex(shuffleKey(seed, ticketIdOf(a + 1)), shuffleKey(seed, ticketIdOf(b + 1))));
      order.splice(start, tied.length, ...tied);
    }
    start = end;
  }
  const places = Buffer.alloc(count * 4);
  order.forEach((index, place) => places.writeUInt32BE(place + 1, index * 4));
  return places;
}

const compareHex = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
