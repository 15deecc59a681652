import { guessesLog10 } from './guess-estimator';

/*
 * Whether a production secret looks generated. Measured on zxcvbn-ts 4.2 (log10 of guesses) and on
 * the byte estimate below, 1,000 to 100,000 draws each:
 *
 *   openssl rand -hex 32                       62.9 median, 58.5 lowest  (bytes: 139.6 bits lowest)
 *   openssl rand -base64 32                    44.0 median, 42.3 lowest; base64url 40.5 lowest
 *   32 random hex characters (16 bytes)        31.5 median, 28.0 lowest
 *   a random UUID                              35.2
 *   six random words, eight random words       30.3, 42.7
 *   dev-only-secret-change-me-please!!         26.2 (10.7 beside this repository's published values)
 *   my-super-secret-jwt-key-for-production     24.5
 *   qwertyuiopasdfghjklzxcvbnm123456           12.0
 *   Tr0ub4dor&3 three times                    11.5
 *   passwordpasswordpasswordpassword1           4.0
 *
 * So: hex or base64 of at least 32 bytes is judged by its bytes (no estimator, nothing to load for
 * the usual `openssl rand -hex 32`); base64 must also not be words that happen to be base64
 * (10^30 leaves 10 orders of margin under the lowest random draw); anything else needs 10^36
 * (~120 bits): above every phrase-like and patterned value measured, and above what 32 random hex
 * characters can score, so a recipe is accepted always or never rather than by luck of the draw.
 */
const MIN_RANDOM_BYTES = 32;
/** Under the lowest byte estimate of 32 random bytes (139.6 in 100,000 draws), far over repeats and walks. */
const MIN_BYTE_BITS = 128;
const MIN_BASE64_GUESSES_LOG10 = 30;
const MIN_GUESSES_LOG10 = 36;

/** Why production must refuse `secret`, or undefined when it looks generated. */
export function guessableBecause(secret: string, published: readonly string[]): string | undefined {
  const hex = /^(?:[0-9a-f]{2})+$/i.test(secret) ? Buffer.from(secret, 'hex') : undefined;
  const bytes = hex ?? base64Bytes(secret);
  if (bytes && bytes.length >= MIN_RANDOM_BYTES) {
    if (!looksRandom(bytes)) return 'hex or base64 of repeated, patterned or text bytes';
    if (hex) return undefined;
    const guesses = guessesLog10(secret, published);
    return guesses < MIN_BASE64_GUESSES_LOG10 ? wordsOrPatterns(guesses, MIN_BASE64_GUESSES_LOG10) : undefined;
  }
  const guesses = guessesLog10(secret, published);
  return guesses < MIN_GUESSES_LOG10 ? wordsOrPatterns(guesses, MIN_GUESSES_LOG10) : undefined;
}

const wordsOrPatterns = (guesses: number, needed: number): string =>
  `words, names, keyboard walks or repeats (about 10^${Math.floor(guesses)} guesses, 10^${needed} needed)`;

/** The bytes a base64 or base64url text stands for, when it is exactly that (Node's decoder skips junk). */
function base64Bytes(secret: string): Buffer | undefined {
  const unpadded = secret.replace(/={1,2}$/, '');
  for (const encoding of ['base64', 'base64url'] as const) {
    const bytes = Buffer.from(unpadded, encoding);
    if (bytes.toString(encoding).replace(/=+$/, '') === unpadded) return bytes;
  }
  return undefined;
}

/**
 * Random bytes: varied (the estimate below) and not text in disguise. 32 random bytes are all
 * printable ASCII once in 10^14 draws; the hex or base64 of a phrase always is.
 */
function looksRandom(bytes: Buffer): boolean {
  const text = bytes.toString('latin1');
  return estimatedEntropyBits(text) >= MIN_BYTE_BITS && /[^\x20-\x7e]/.test(text);
}

/**
 * A rough, deliberately pessimistic estimate of how many bits of guessing a string of symbols is
 * worth: the length of its shortest repeating unit times the lower of two per-symbol Shannon
 * entropies, of its symbols (one dominating) and of the steps between neighbours (runs like
 * `abcd` or `0123`, whose symbols all differ but whose steps are all +1).
 */
export function estimatedEntropyBits(secret: string): number {
  const characters = [...shortestRepeatingUnit([...secret])];
  if (characters.length < 2) return 0;
  const codes = characters.map((c) => c.codePointAt(0)!);
  const steps = codes.slice(1).map((code, i) => code - codes[i]);
  return characters.length * Math.min(shannonBits(codes), shannonBits(steps));
}

/** Bits per symbol of the symbols' observed distribution. */
function shannonBits(symbols: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const symbol of symbols) counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / symbols.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** `xyzxyzxyz` → `xyz`; a string that does not repeat is its own unit. */
function shortestRepeatingUnit(characters: string[]): string[] {
  const n = characters.length;
  for (let period = 1; period <= n / 2; period++) {
    let repeats = true;
    for (let i = period; i < n && repeats; i++) repeats = characters[i] === characters[i - period];
    if (repeats) return characters.slice(0, period);
  }
  return characters;
}
