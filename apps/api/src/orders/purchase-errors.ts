import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';

export const soldOut = (productId: string) =>
  new AppException(ErrorCode.SoldOut, `product ${productId} does not have enough stock`);
export const perUserLimit = (limit: number) =>
  new AppException(ErrorCode.PerUserLimit, `at most ${limit} unit(s) of this product per customer`);
export const saleNotActive = () =>
  new AppException(ErrorCode.SaleNotActive, 'the sale for this product is not open now');
export const keyReused = () =>
  new AppException(ErrorCode.IdempotencyKeyReused, 'this Idempotency-Key was used for a different request');
