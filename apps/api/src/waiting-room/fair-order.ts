import { createHash, createHmac } from 'node:crypto';

/**
 * The start-of-sale shuffle of the pre-queue, which anyone can check: each pre-queue ticket is
 * ranked by the lowercase hex of HMAC-SHA256(key = seed bytes, message = ticketId), ascending.
 * The seed is derived from the server's key and the product, so it is fixed before the first
 * ticket is taken (its SHA-256 is published from the pre-queue's opening) and cannot be chosen
 * later to favour anyone; it is published itself once the sale starts.
 */
export const saleSeed = (key: Buffer, productId: string): Buffer => createHmac('sha256', key).update(`seed|${productId}`).digest();

export const seedCommitment = (seed: Buffer): string => createHash('sha256').update(seed).digest('hex');

/** The public id of ticket number n: its decimal number (unique per product). */
export const ticketIdOf = (n: number): string => String(n);

export const shuffleKey = (seed: Buffer, ticketId: string): string => createHmac('sha256', seed).update(ticketId, 'utf8').digest('hex');

/**
 * Places of pre-queue tickets 1..count: a buffer of 4-byte big-endian places, ticket n at offset
 * 4(n-1). Hex strings of equal length compare like the numbers they spell, so a plain string
 * sort is the contract's order.
 */
export function rankPreQueue(seed: Buffer, count: number): Buffer {
  const keyed = Array.from({ length: count }, (_, i) => ({ n: i + 1, key: shuffleKey(seed, ticketIdOf(i + 1)) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const places = Buffer.alloc(count * 4);
  keyed.forEach(({ n }, index) => places.writeUInt32BE(index + 1, (n - 1) * 4));
  return places;
}
