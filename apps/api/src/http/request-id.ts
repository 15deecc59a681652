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

const kRequestId = Symbol('requestId');
type Tagged = IncomingMessage & { [kRequestId]?: string };

/**
 * The id of this request: the caller's X-Request-Id when acceptable, else a new UUID. Computed
 * once and kept on the request, so Fastify (the response header) and the logger (every log line)
 * agree on it whichever asks first.
 */
export function requestIdOf(req: IncomingMessage): string {
  const tagged = req as Tagged;
  const known = tagged[kRequestId];
  if (known !== undefined) return known;
  const offered = req.headers[REQUEST_ID_HEADER];
  const id = typeof offered === 'string' && ACCEPTED.test(offered) ? offered : randomUUID();
  tagged[kRequestId] = id;
  return id;
}
