import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import type { RefusalReason } from './product-queue';

/** 503 OVERLOADED: this instance cannot answer the purchase within its deadline; nothing was done. */
export class OverloadedException extends AppException {
  constructor(
    readonly reason: RefusalReason,
    retryAfterS: number,
  ) {
    super(
      ErrorCode.Overloaded,
      'too many purchases for this product right now, nothing was done; retry after Retry-After',
      retryAfterS,
    );
  }
}
