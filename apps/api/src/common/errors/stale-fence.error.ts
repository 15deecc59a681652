import { ErrorCode } from './error-code';
import { AppException } from './app.exception';

/**
 * The product row carries a newer fencing token than ours: our lease was lost and someone else
 * has written since. Nothing was changed; the client may retry.
 */
export class StaleFenceException extends AppException {
  constructor(productId: string) {
    super(
      ErrorCode.LockTimeout,
      `the lock on product ${productId} was lost before the write; nothing changed, retry`,
      1,
    );
  }
}
