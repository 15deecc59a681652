import type { FastifyCorsOptions } from '@fastify/cors';
import type { CorsOrigins } from '../config/edge-config';

/** What a storefront page sends: the token, a JSON body, a purchase's key, a revalidation, its own request id, a waiting room's admission. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-None-Match',
  'X-Request-Id',
  'Admission',
];
/** What a storefront page may read beyond the CORS-safelisted headers (Cache-Control and Content-Type are). */
export const CORS_EXPOSED_HEADERS = ['Retry-After', 'X-Request-Id', 'ETag'];
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT'];
/** How long a browser may reuse a preflight answer: a shopper's purchases after the first skip the extra round trip. */
export const CORS_PREFLIGHT_MAX_AGE_S = 600;

/**
 * @fastify/cors options for the configured origins, or undefined when no origin is allowed (then
 * no response carries CORS headers and a preflight is an unknown route, 404).
 *
 * Any origin: a fixed `*`, the same on every response, so a shared cache may store one copy.
 * A list: the request's origin is echoed only when listed (with `Vary: Origin`); an unlisted or
 * missing origin gets no CORS header at all, and its preflight is not answered.
 */
export function corsOptions(origins: CorsOrigins): FastifyCorsOptions | undefined {
  if (origins !== '*' && origins.length === 0) return undefined;
  const allowed = origins === '*' ? undefined : new Set(origins);
  return {
    origin: allowed
      ? (origin, answer) => answer(null, origin !== undefined && allowed.has(origin) ? origin : false)
      : '*',
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_PREFLIGHT_MAX_AGE_S,
    // A bare OPTIONS (no Origin or requested method) is not a preflight: no 400 in a non-contract shape for it.
    strictPreflight: false,
  };
}
