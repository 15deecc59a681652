/** What a purchase request says: its body, its Idempotency-Key, and what makes two requests the same. */
import { createHash } from 'node:crypto';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { MAX_QUANTITY } from './dto/purchase.dto';

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

export interface PurchaseBody {
  quantity: number;
}

const invalid = (message: string) => new AppException(ErrorCode.ValidationFailed, message);

/**
 * The purchase body, checked by hand: it is the hottest body of the API, and the class-validator
 * pipeline (instantiate, reflect over decorators, validate, collect) cost more than the rest of
 * a refusal. Same rules as the other DTOs: absent body or field means one unit; unknown fields,
 * wrong types (no coercion: "1" is not 1) and `null` are refused with 400 VALIDATION_FAILED.
 */
export function parsePurchaseBody(body: unknown): PurchaseBody {
  if (body === undefined) return { quantity: 1 };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the request body must be a JSON object');
  let quantity: unknown = 1;
  for (const key in body) {
    if (!Object.prototype.hasOwnProperty.call(body, key)) continue;
    if (key !== 'quantity') throw invalid(`property ${key} should not exist`);
    quantity = (body as { quantity: unknown }).quantity;
  }
  if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    throw invalid(`quantity must be an integer from 1 to ${MAX_QUANTITY}`);
  }
  return { quantity };
}
