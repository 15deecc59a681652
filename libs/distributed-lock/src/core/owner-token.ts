import { randomFillSync } from 'node:crypto';

const TOKEN_BYTES = 16;
const TOKENS_PER_FILL = 256;
const TOKEN_CHARS = TOKEN_BYTES * 2;

// A call into the CSPRNG per token costs more than the rest of an uncontended acquire's
// JavaScript; one fill serves 256 tokens (as crypto.randomUUID caches its entropy), and one hex
// conversion serves them too: a token is then a substring, where converting 16 bytes per token
// cost ~0.2 µs per acquire.
const pool = Buffer.alloc(TOKEN_BYTES * TOKENS_PER_FILL);
let hex = '';
let offset = hex.length;

/** A random 128-bit owner token, as 32 hex characters. */
export function ownerToken(): string {
  if (offset >= hex.length) {
    hex = randomFillSync(pool).toString('hex');
    offset = 0;
  }
  offset += TOKEN_CHARS;
  return hex.substring(offset - TOKEN_CHARS, offset);
}
