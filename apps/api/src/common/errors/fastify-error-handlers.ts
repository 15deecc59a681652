import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, errorBody, STATUS_OF } from './error-code';

const contractBody = (code: ErrorCode, message: string): string => JSON.stringify(errorBody(code, message));

/**
 * Errors Fastify meets before any route (so before Nest's exception filter): a URL whose
 * percent-encoding is broken, a path parameter over the length limit, a failed route constraint.
 * Each gets the contract's body instead of Fastify's own.
 */
function frameworkErrors(error: { code?: string }, _request: FastifyRequest, reply: FastifyReply): void {
  const [code, message] =
    error.code === 'FST_ERR_BAD_URL'
      ? [ErrorCode.ValidationFailed, 'the URL is not validly percent-encoded']
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? [ErrorCode.UriTooLong, 'a path parameter is too long']
        : [ErrorCode.ValidationFailed, 'the request does not match any route'];
  void reply
    .code(STATUS_OF[code])
    .header('content-type', 'application/json; charset=utf-8')
    .send(contractBody(code, message));
}

/**
 * Requests Node's HTTP parser refuses (headers too large, malformed request lines or headers,
 * a client too slow to send its headers or its whole body: REQUEST_BODY_TIMEOUT_MS) never reach
 * Fastify's routing, or are taken from it: answer them on the socket in the contract's shape,
 * then close it.
 */
function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [ErrorCode.HeadersTooLarge, 'the request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [ErrorCode.RequestTimeout, 'the request was not received in time']
        : [ErrorCode.ValidationFailed, 'the request is not valid HTTP'];
  const body = contractBody(code, message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${STATUS_OF[code]} ${STATUS_CODES[STATUS_OF[code]]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Options for the Fastify adapter. */
export const contractErrorOptions = { frameworkErrors, clientErrorHandler };
