import { HttpException } from '@nestjs/common';
import { ErrorCode, STATUS_OF } from './error-code';
import { AppException } from './app.exception';

export interface ErrorBody {
  statusCode: number;
  code: string;
  message: string;
  [extra: string]: unknown;
}

export interface ErrorAnswer {
  body: ErrorBody;
  retryAfterS?: number;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.ValidationFailed,
  401: ErrorCode.Unauthenticated,
  403: ErrorCode.Forbidden,
  404: ErrorCode.NotFound,
  405: ErrorCode.MethodNotAllowed,
  413: ErrorCode.PayloadTooLarge,
  415: ErrorCode.UnsupportedMediaType,
  422: ErrorCode.ValidationFailed,
  429: ErrorCode.RateLimited,
  503: ErrorCode.DependencyUnavailable,
};

const answer = (code: ErrorCode, message: string, retryAfterS?: number, statusCode = STATUS_OF[code]): ErrorAnswer => ({
  body: { statusCode, code, message },
  retryAfterS,
});

/** Maps an HttpException (ours, Nest's, Terminus's) to the contract body. */
export function fromHttpException(exception: HttpException): ErrorAnswer {
  const status = exception.getStatus();
  if (exception instanceof AppException) {
    const known = answer(exception.code, exception.message, exception.retryAfterS);
    // Details follow the contract's fields and never replace them (spread again last, they win).
    if (exception.details) known.body = { ...known.body, ...exception.details, ...known.body };
    return known;
  }
  const response = exception.getResponse();
  const code = CODE_BY_STATUS[status] ?? (status >= 500 ? ErrorCode.Internal : ErrorCode.ValidationFailed);
  if (typeof response === 'object' && response !== null && 'details' in response) {
    // Terminus health report: keep its format, add the contract fields.
    return {
      body: { ...(response as object), statusCode: status, code, message: 'a dependency is unavailable' },
      retryAfterS: 1,
    };
  }
  const raw =
    typeof response === 'object' && response !== null ? (response as { message?: unknown }).message : response;
  const message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : exception.message;
  return answer(code, message, status === 503 || status === 429 ? 1 : undefined, status);
}

/** Errors raised by Fastify itself (body parsing, limits) carry a 4xx statusCode and an FST_ code. */
export function fromFrameworkError(error: {
  statusCode?: number;
  code?: string;
  message?: string;
}): ErrorAnswer | undefined {
  const status = error.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return answer(ErrorCode.PayloadTooLarge, 'request body is too large');
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return answer(ErrorCode.UnsupportedMediaType, 'send JSON (content-type: application/json)');
  const code = CODE_BY_STATUS[status] ?? ErrorCode.ValidationFailed;
  const message = error.code?.startsWith('FST_ERR_CTP')
    ? 'request body is not valid JSON'
    : (error.message ?? 'bad request');
  return answer(code, message, undefined, status);
}
