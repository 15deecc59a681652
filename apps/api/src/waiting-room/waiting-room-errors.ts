import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';

export const noWaitingRoom = (productId: string) =>
  new AppException(ErrorCode.NotFound, `product ${productId} is not sold through a waiting room`);
export const ticketInvalid = () =>
  new AppException(ErrorCode.TicketInvalid, 'the ticket is not one this service issued for this product');
export const notAdmitted = (why: string) =>
  new AppException(ErrorCode.NotAdmitted, `this product is sold through its waiting room: ${why}`);
export const queueNotOpen = () =>
  new AppException(ErrorCode.SaleNotActive, 'the waiting room of this product is not open now');
export const soldOutAtJoin = (productId: string) =>
  new AppException(ErrorCode.SoldOut, `product ${productId} is sold out`);
