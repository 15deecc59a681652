import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a signature's timestamp may be from the database's clock, either way: a replay window, not a clock check. */
export const SIGNATURE_TOLERANCE_S = 300;
/** A header carrying more candidate signatures than this is not from a provider rotating a secret. */
const MAX_SIGNATURES = 8;
const HEX_SHA256 = /^[0-9a-f]{64}$/i;

export type SignatureVerdict = { valid: true } | { valid: false; reason: string };

/** hex HMAC-SHA256(secret, `<timestamp>.<raw body>`), the value of one `v1=` entry. */
export function signPayload(secret: string, timestampS: number, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestampS}.`).update(rawBody).digest('hex');
}

/** `t=<unix s>,v1=<hex>[,v1=<hex>…]`; entries of other schemes are ignored. */
export function parseSignatureHeader(header: string): { timestampS: number; signatures: string[] } | undefined {
  let timestampS: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestampS = Number(value);
    else if (key === 'v1') signatures.push(value);
  }
  return timestampS === undefined || signatures.length === 0 ? undefined : { timestampS, signatures };
}

/**
 * Whether `header` signs `rawBody` with `secret` at a time within SIGNATURE_TOLERANCE_S of `nowS`.
 * Any one `v1` may match: a provider rotating its secret signs with the old and the new one.
 * Digests are compared in constant time, so the answer's timing tells nothing of the expected one.
 */
export function verifySignature(
  header: string | undefined,
  rawBody: Buffer,
  secret: string,
  nowS: number,
): SignatureVerdict {
  if (!header) return { valid: false, reason: 'the Payment-Signature header is missing' };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { valid: false, reason: 'the Payment-Signature header needs t=<unix seconds> and v1=<hex>' };
  if (parsed.signatures.length > MAX_SIGNATURES)
    return { valid: false, reason: `at most ${MAX_SIGNATURES} v1 signatures are read` };
  if (Math.abs(nowS - parsed.timestampS) > SIGNATURE_TOLERANCE_S) {
    return { valid: false, reason: `the signature's timestamp is more than ${SIGNATURE_TOLERANCE_S} s away` };
  }
  const expected = Buffer.from(signPayload(secret, parsed.timestampS, rawBody), 'hex');
  let matched = false;
  for (const candidate of parsed.signatures) {
    // Every candidate is compared, so the time taken does not say which one matched.
    if (HEX_SHA256.test(candidate) && timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  return matched ? { valid: true } : { valid: false, reason: 'no v1 signature matches the body' };
}
