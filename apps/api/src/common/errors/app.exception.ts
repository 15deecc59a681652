import { HttpException } from '@nestjs/common';
import { ErrorCode, errorBody, STATUS_OF } from './error-code';

/** A domain error that carries its contract code; the filter answers it as-is. */
export class AppException extends HttpException {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(errorBody(code, message), STATUS_OF[code]);
  }
}

export const productNotFound = (id: string) => new AppException(ErrorCode.ProductNotFound, `product ${id} does not exist`);
export const orderNotFound = (id: string) => new AppException(ErrorCode.OrderNotFound, `order ${id} does not exist`);
export const dependencyUnavailable = (what: string, retryAfterS = 1) =>
  new AppException(ErrorCode.DependencyUnavailable, `${what} is unavailable, retry later`, retryAfterS);
