import { HttpException } from '@nestjs/common';
import { AppException } from './app.exception';
import { ErrorCode } from './error-code';

describe('AppException', () => {
  it('carries its contract code, status, body and Retry-After', () => {
    const error = new AppException(ErrorCode.SoldOut, 'product 7 does not have enough stock', 2);
    expect(error).toBeInstanceOf(HttpException);
    expect(error.code).toBe(ErrorCode.SoldOut);
    expect(error.retryAfterS).toBe(2);
    expect(error.getStatus()).toBe(409);
    expect(error.getResponse()).toEqual({
      statusCode: 409,
      code: 'SOLD_OUT',
      message: 'product 7 does not have enough stock',
    });
  });

  it('captures no stack frames (a refusal is an answer, not a fault)', () => {
    const error = new AppException(ErrorCode.SoldOut, 'sold out');
    expect(error.stack?.split('\n').filter((line) => line.trimStart().startsWith('at '))).toEqual([]);
  });

  it('leaves the stack trace limit as it found it, for the errors that need one', () => {
    const before = Error.stackTraceLimit;
    new AppException(ErrorCode.SoldOut, 'sold out');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });
});
