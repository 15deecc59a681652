import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { OrderStatus } from './order-status';

export const notYourOrder = () => new AppException(ErrorCode.Forbidden, 'this order belongs to another customer');
export const invalidState = (action: string, status: OrderStatus | 'EXPIRED') =>
  new AppException(ErrorCode.InvalidOrderState, `cannot ${action} an order that is ${status}`);
