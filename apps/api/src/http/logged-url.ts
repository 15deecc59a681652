/**
 * Path parameters that are credentials: a queue ticket is the whole of its holder's claim to a
 * place (and, polled, hands out the admission). Their values never reach a log line.
 */
export const SECRET_PARAMS: ReadonlySet<string> = new Set(['ticket']);

export const REDACTED = '[redacted]';

/**
 * The URL a request's log line carries: `url` with the value of every secret parameter of its
 * route `pattern` (Fastify's, e.g. `/products/:id/queue/:ticket`, with any global prefix) replaced
 * by REDACTED; the rest, query included, as it came. A URL that does not line up with its pattern
 * segment by segment (a wildcard route) is logged as the pattern itself, never half-redacted.
 */
export function loggedUrl(pattern: string | undefined, url: string): string {
  if (pattern === undefined || !pattern.includes('/:')) return url;
  const patternSegments = pattern.split('/');
  const secret = patternSegments.map((segment) => segment.startsWith(':') && SECRET_PARAMS.has(segment.slice(1)));
  if (!secret.includes(true)) return url;
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const segments = path.split('/');
  if (segments.length !== patternSegments.length) return pattern;
  return (
    segments.map((segment, i) => (secret[i] ? REDACTED : segment)).join('/') + (queryAt < 0 ? '' : url.slice(queryAt))
  );
}
