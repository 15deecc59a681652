/**
 * Path parameters that are credentials: a queue ticket is the whole of its holder's claim to a
 * place (and, polled, hands out the admission). Their values never reach a log line.
 */
export const SECRET_PARAMS: ReadonlySet<string> = new Set(['ticket']);

export const REDACTED = '[redacted]';

/**
 * A signed ticket or admission (ticket-signer.ts: `t1.<product>.<epoch>.<number>...`,
 * `a1.<product>.<epoch>.<place>...`), wherever it stands in a piece of a URL, once percent-decoded.
 */
const SIGNED_TOKEN = /[ta]1\.\d+\.[\w-]+\.\d+\./;
/**
 * What every spelling of a token's `1.` contains (`1.`, `1%2E`, `%31.`, `%31%2E`, double-encoded
 * `1%252E`): a URL without it cannot hold one, and skips the search.
 */
const MAYBE_TOKEN = /1[.%]/;
// A URL's pieces between its delimiters, the delimiters kept (split with a capture group).
const DELIMITERS = /([/?&=#;])/;

/**
 * The URL a request's log line carries: never a ticket or an admission, wherever the client put it.
 * - A route with a secret parameter (Fastify's pattern, e.g. `/products/:id/queue/:ticket`, with any
 *   global prefix): that parameter's value is REDACTED; a URL that does not line up with its pattern
 *   segment by segment (a wildcard route) is logged as the pattern itself, never half-redacted.
 * - A URL that matched no route (a poll with a trailing slash, or extra segments): everything after
 *   a `queue` segment is REDACTED, since that is where a ticket travels.
 * - Anywhere (path and query): a piece that reads as a signed ticket or admission is REDACTED.
 * The rest, query included, is as it came.
 */
export function loggedUrl(pattern: string | undefined, url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const logged = pattern === undefined ? unroutedPath(path) : routedPath(pattern, path);
  if (logged === undefined) return pattern ?? REDACTED;
  return withoutSignedTokens(queryAt < 0 ? logged : logged + url.slice(queryAt));
}

/** `path` with its secret parameters REDACTED, or undefined when it does not line up with `pattern`. */
function routedPath(pattern: string, path: string): string | undefined {
  if (!pattern.includes('/:')) return path;
  const patternSegments = pattern.split('/');
  const secret = patternSegments.map((segment) => segment.startsWith(':') && SECRET_PARAMS.has(segment.slice(1)));
  if (!secret.includes(true)) return path;
  const segments = path.split('/');
  if (segments.length !== patternSegments.length) return undefined;
  return segments.map((segment, i) => (secret[i] ? REDACTED : segment)).join('/');
}

/** `/products/1/queue/<ticket>/more` as `/products/1/queue/[redacted]`; a path without a `queue` segment as it is. */
function unroutedPath(path: string): string {
  const segments = path.split('/');
  const queue = segments.findIndex((segment) => decoded(segment).toLowerCase() === 'queue');
  if (queue < 0 || segments.slice(queue + 1).every((segment) => segment === '')) return path;
  return [...segments.slice(0, queue + 1), REDACTED].join('/');
}

function withoutSignedTokens(url: string): string {
  if (!MAYBE_TOKEN.test(url)) return url;
  return url
    .split(DELIMITERS)
    .map((piece) => (SIGNED_TOKEN.test(decoded(piece)) ? REDACTED : piece))
    .join('');
}

/** `piece` percent-decoded until nothing more decodes (a client may encode twice); as it is where it is not valid. */
function decoded(piece: string): string {
  let text = piece;
  for (let round = 0; round < 3 && text.includes('%'); round++) {
    try {
      text = decodeURIComponent(text);
    } catch (error) {
      if (!(error instanceof URIError)) throw error;
      return text;
    }
  }
  return text;
}
