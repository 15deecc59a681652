import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * What a caller may choose as its request id: up to 128 characters of letters, digits and
 * `. _ : + / = -` (UUIDs, ULIDs, trace ids, base64). Anything else (too long, spaces, control
 * characters, several ids joined by a comma) is replaced, so a log line or a response header
 * never carries what a client smuggled in.
 */
const ACCEPTED = /^[A-Za-z0-9._:+/=-]{1,128}$/;

/**
 * Fastify's genReqId: the caller's X-Request-Id when acceptable, else a new UUID. Fastify calls it
 * once per request; the logger sees the same id (middie copies request.id onto the raw request,
 * where pino-http takes it), so a response and its log lines can be matched.
 */
export function requestIdOf(req: IncomingMessage): string {
  const offered = req.headers[REQUEST_ID_HEADER];
  return typeof offered === 'string' && ACCEPTED.test(offered) ? offered : randomUUID();
}
