import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';

export const signatureInvalid = (reason: string) => new AppException(ErrorCode.SignatureInvalid, reason);
export const amountMismatch = (orderId: string, sent: number, total: string) =>
  new AppException(ErrorCode.AmountMismatch, `order ${orderId} totals ${total} cents, the event says ${sent}`);
export const currencyMismatch = (orderId: string, sent: string, expected: string) =>
  new AppException(
    ErrorCode.AmountMismatch,
    `order ${orderId} is priced in ${expected.toUpperCase()}, the event is in ${sent.toUpperCase()}`,
  );
