import { createHash } from 'node:crypto';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';

const KEY_PATTERN = /^[A-Za-z0-9._:~-]{1,128}$/;

/** Whether a header value is a well-formed Idempotency-Key. */
export const isIdempotencyKey = (raw: string): boolean => KEY_PATTERN.test(raw);

/** Validates the optional Idempotency-Key header; undefined when absent. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) || !KEY_PATTERN.test(raw)) {
    throw new AppException(ErrorCode.ValidationFailed, 'Idempotency-Key must be 1 to 128 characters of letters, digits and . _ : ~ -');
  }
  return raw;
}

/** What makes two requests "the same request" for one key. */
export const purchaseFingerprint = (productId: string, quantity: number): string =>
  createHash('sha256').update(`purchase\n${productId}\n${quantity}`).digest('hex');
