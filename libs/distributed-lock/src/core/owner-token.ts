import { randomFillSync } from 'node:crypto';

// A call into the CSPRNG per token costs more than the rest of an uncontended acquire's
// JavaScript; one fill serves 256 tokens (as crypto.randomUUID caches its entropy).
const pool = Buffer.alloc(16 * 256);
let offset = pool.length;

/** A random 128-bit owner token, as 32 hex characters. */
export function ownerToken(): string {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  offset += 16;
  return pool.toString('hex', offset - 16, offset);
}
