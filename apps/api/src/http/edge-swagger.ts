import type { HeaderObject, OpenAPIObject, ParameterObject, ResponseObject } from '@nestjs/swagger';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_PREFLIGHT_MAX_AGE_S } from './cors-options';

/** The document-wide story of the headers every route shares (Swagger UI shows it on top). */
export const EDGE_HEADERS_DESCRIPTION = [
  '**Headers on every response.** `X-Request-Id` (yours when you send an acceptable one, else a new UUID; also in every log line of the request), ' +
    "`X-Content-Type-Options: nosniff`, `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`, `X-Frame-Options: DENY`, " +
    '`Referrer-Policy: no-referrer`, `Strict-Transport-Security`, `Cross-Origin-Resource-Policy: same-origin`, `X-Permitted-Cross-Domain-Policies: none`.',
  '**Caching.** `GET /products/:id` is cacheable (`Cache-Control: public, max-age, stale-while-revalidate` and an `ETag`; `If-None-Match` answers 304); ' +
    'every other answer, and every error, is `Cache-Control: no-store`.',
  `**CORS** for the origins in \`CORS_ORIGINS\`: preflights answer 204 allowing ${CORS_ALLOWED_HEADERS.map((h) => `\`${h}\``).join(', ')} ` +
    `(cached by the browser for ${CORS_PREFLIGHT_MAX_AGE_S} s); pages may read ${CORS_EXPOSED_HEADERS.map((h) => `\`${h}\``).join(', ')}. ` +
    'Other origins get no CORS headers.',
].join('\n\n');

export const REQUEST_ID_PARAMETER: Omit<ParameterObject, 'example' | 'examples'> = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description:
    'your id for this request (up to 128 of A-Z a-z 0-9 . _ : + / = -); otherwise one is generated. Echoed in the response and the logs.',
  schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:+/=-]{1,128}$' },
};

const REQUEST_ID: HeaderObject = {
  description: 'the request id (yours when acceptable, else generated)',
  schema: { type: 'string' },
};
const NO_STORE: HeaderObject = {
  description: 'no-store: never answered by a cache',
  schema: { type: 'string', example: 'no-store' },
};
const RETRY_AFTER: HeaderObject = {
  description: 'seconds to wait before retrying',
  schema: { type: 'integer', example: 1 },
};

/**
 * Adds the shared response headers to every operation of the document: X-Request-Id everywhere,
 * Cache-Control where an operation does not declare its own, Retry-After on 429 and 503.
 */
export function describeEdgeHeaders(document: OpenAPIObject): void {
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      const responses = (operation as { responses?: Record<string, ResponseObject> }).responses;
      if (!responses) continue;
      for (const [status, response] of Object.entries(responses)) {
        const own = response.headers ?? {};
        response.headers = {
          'X-Request-Id': REQUEST_ID,
          ...(own['Cache-Control'] ? {} : { 'Cache-Control': NO_STORE }),
          ...(status === '429' || status === '503' ? { 'Retry-After': RETRY_AFTER } : {}),
          ...own,
        };
      }
    }
  }
}
