import { LockLostError, LockTimeoutError } from '@app/distributed-lock';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ErrorCode, errorBody } from './error-code';
import { ErrorAnswer, fromFrameworkError, fromHttpException } from './error-body';
import { isDatabaseUnavailable, isRedisUnavailable, isTransactionConflict } from './dependency-errors';

/**
 * Gives every error the contract's `{statusCode, code, message}` shape. Client mistakes become
 * 4xx with their code; dependency failures become 503 with Retry-After; anything else is a 500
 * whose details go to the log, never to the client.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const result = this.toAnswer(exception);
    if (result.retryAfterS !== undefined) void reply.header('Retry-After', String(result.retryAfterS));
    void reply.status(result.body.statusCode).send(result.body);
  }

  toAnswer(exception: unknown): ErrorAnswer {
    const answer = classifyError(exception);
    if (answer.body.code === ErrorCode.Internal) {
      this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    } else if (answer.body.code === ErrorCode.DependencyUnavailable) {
      // Operators need the cause of a 503, which the client's message does not carry.
      const cause = (exception as { cause?: { message?: string } }).cause?.message;
      this.logger.warn(
        `503 ${answer.body.message}: ${exception instanceof Error ? exception.message : String(exception)}${cause ? ` (cause: ${cause})` : ''}`,
      );
    }
    return answer;
  }
}

/** The contract answer for any error (pure: the filter logs, metrics count). */
export function classifyError(exception: unknown): ErrorAnswer {
  if (exception instanceof HttpException) return fromHttpException(exception);
  // A lock not had in time, a lease lost, or rows that stayed deadlocked after the bounded retries
  // of withConflictRetry: nothing was done, and the client may retry shortly.
  if (exception instanceof LockTimeoutError || exception instanceof LockLostError || isTransactionConflict(exception)) {
    return { body: errorBody(ErrorCode.LockTimeout, 'the product is busy, retry shortly'), retryAfterS: 1 };
  }
  if (isRedisUnavailable(exception))
    return { body: errorBody(ErrorCode.DependencyUnavailable, 'redis is unavailable, retry later'), retryAfterS: 1 };
  if (isDatabaseUnavailable(exception))
    return {
      body: errorBody(ErrorCode.DependencyUnavailable, 'the database is unavailable, retry later'),
      retryAfterS: 2,
    };
  const framework = fromFrameworkError((exception ?? {}) as { statusCode?: number; code?: string; message?: string });
  return framework ?? { body: errorBody(ErrorCode.Internal, 'internal error') };
}
