import { LockLostError, LockTimeoutError } from '@app/distributed-lock';
import { BadRequestException, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { AppException } from './app.exception';
import { ErrorCode } from './error-code';

describe('AllExceptionsFilter.toAnswer', () => {
  const filter = new AllExceptionsFilter();

  it('keeps a domain error as it is', () => {
    expect(filter.toAnswer(new AppException(ErrorCode.SoldOut, 'gone')).body).toEqual({
      statusCode: 409,
      code: 'SOLD_OUT',
      message: 'gone',
    });
  });

  it('gives Nest exceptions a contract code', () => {
    expect(filter.toAnswer(new NotFoundException('Cannot GET /x')).body).toEqual({
      statusCode: 404,
      code: 'NOT_FOUND',
      message: 'Cannot GET /x',
    });
    expect(filter.toAnswer(new BadRequestException(['a must be int', 'b must be string'])).body.message).toBe(
      'a must be int; b must be string',
    );
  });

  it('answers lock timeouts and lost leases with 503 LOCK_TIMEOUT and Retry-After', () => {
    for (const error of [new LockTimeoutError('stock:1', 3000), new LockLostError('stock:1')]) {
      expect(filter.toAnswer(error)).toEqual({
        body: expect.objectContaining({ statusCode: 503, code: 'LOCK_TIMEOUT' }),
        retryAfterS: 1,
      });
    }
  });

  it('answers an unreachable Postgres or Redis with 503 DEPENDENCY_UNAVAILABLE', () => {
    const pgDown = Object.assign(new Error('query failed'), { driverError: { code: 'ECONNREFUSED' } });
    expect(filter.toAnswer(pgDown).body.code).toBe('DEPENDENCY_UNAVAILABLE');
    expect(filter.toAnswer(new Error('Connection is closed.')).body.code).toBe('DEPENDENCY_UNAVAILABLE');
    expect(filter.toAnswer(new ServiceUnavailableException()).body.code).toBe('DEPENDENCY_UNAVAILABLE');
    // A Postgres that accepts the connection but never answers (black-holed network).
    expect(filter.toAnswer(new Error('Query read timeout')).body.code).toBe('DEPENDENCY_UNAVAILABLE');
  });

  it('answers a Redis failover in progress (Cluster redirections, CLUSTERDOWN, READONLY) with 503 DEPENDENCY_UNAVAILABLE', () => {
    for (const message of [
      'Too many Cluster redirections. Last error: MOVED 866 127.0.0.1:7001',
      'CLUSTERDOWN The cluster is down',
      "READONLY You can't write against a read only replica.",
      'LOADING Redis is loading the dataset in memory',
    ]) {
      expect(filter.toAnswer(new Error(message))).toEqual({
        body: expect.objectContaining({ statusCode: 503, code: 'DEPENDENCY_UNAVAILABLE' }),
        retryAfterS: 1,
      });
    }
    expect(
      filter.toAnswer(Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' }))
        .body.code,
    ).toBe('DEPENDENCY_UNAVAILABLE');
  });

  it('answers a deadlock or serialization failure that outlived its retries with 503 LOCK_TIMEOUT, never 500', () => {
    for (const code of ['40P01', '40001']) {
      const conflict = Object.assign(new Error('deadlock detected'), { driverError: { code } });
      expect(filter.toAnswer(conflict)).toEqual({
        body: expect.objectContaining({ statusCode: 503, code: 'LOCK_TIMEOUT' }),
        retryAfterS: 1,
      });
    }
  });

  it('maps Fastify body errors to 4xx codes', () => {
    expect(filter.toAnswer({ statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'x' }).body.code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(filter.toAnswer({ statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', message: 'x' }).body.code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect(filter.toAnswer({ statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY', message: 'x' }).body.code).toBe(
      'VALIDATION_FAILED',
    );
  });

  it('hides anything else behind a 500 without details', () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const answer = filter.toAnswer(new TypeError('secret internals at /app/x.js:1'));
    expect(answer.body).toEqual({ statusCode: 500, code: 'INTERNAL_ERROR', message: 'internal error' });
  });
});
