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
 * once per request; the request's log line carries the same id (request.id, see
 * logging/request-log.ts), so a response and its log line can be matched.
 */
export function requestIdOf(req: IncomingMessage): string {
  const offered = req.headers[REQUEST_ID_HEADER];
  return typeof offered === 'string' && ACCEPTED.test(offered) ? offered : randomUUID();
}
