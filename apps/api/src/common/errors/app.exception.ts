import { HttpException } from '@nestjs/common';
import { ErrorCode, errorBody, STATUS_OF } from './error-code';

/**
 * A domain error that carries its contract code; the filter answers it as-is. It is an answer, not
 * a fault, and nobody reads its stack, so none is captured: capturing one was 15% of a sold-out
 * refusal's CPU (about 10 µs), the refusal a sale answers most.
 */
export class AppException extends HttpException {
  readonly code: ErrorCode;
  readonly retryAfterS?: number;
  /** Fields the body carries besides the contract's three (what to do next, e.g. a challenge to solve). */
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, retryAfterS?: number, details?: Record<string, unknown>) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(errorBody(code, message), STATUS_OF[code]);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.code = code;
    this.retryAfterS = retryAfterS;
    this.details = details;
  }
}

export const productNotFound = (id: string) =>
  new AppException(ErrorCode.ProductNotFound, `product ${id} does not exist`);
export const orderNotFound = (id: string) => new AppException(ErrorCode.OrderNotFound, `order ${id} does not exist`);
export const dependencyUnavailable = (what: string, retryAfterS = 1) =>
  new AppException(ErrorCode.DependencyUnavailable, `${what} is unavailable, retry later`, retryAfterS);
