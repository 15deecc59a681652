import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';

/** Why a purchase was answered 503 OVERLOADED (the `reason` label of purchase_refused_total). */
export type RefusalReason =
  /** the unit's batcher or all batchers together hold as many purchases as they may */
  | 'queue_full'
  /** the estimated wait would end past the cut-off */
  | 'wait_estimate'
  /** still waiting (or just handed the lock) when its cut-off came */
  | 'expired'
  /** the product lock was not had before the batch's cut-off */
  | 'lock_wait'
  /** Postgres cancelled the batch's statement at the cut-off (a row lock it waited on) */
  | 'statement_bound';

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
