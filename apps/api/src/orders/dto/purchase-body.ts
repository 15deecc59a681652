import { AppException } from '../../common/errors/app.exception';
import { ErrorCode } from '../../common/errors/error-code';
import { MAX_QUANTITY } from './purchase.dto';

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
