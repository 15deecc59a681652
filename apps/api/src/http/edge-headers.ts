import type { FastifyInstance } from 'fastify';
import { REQUEST_ID_HEADER } from './request-id';
import { docsPageSecurityHeaders, HeaderSet, jsonApiSecurityHeaders } from './security-headers';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The static headers every response of this route starts with (set by installEdgeHeaders). */
    edgeHeaders?: HeaderSet;
  }
}

export const DOCS_PREFIX = '/docs';

/**
 * Every response starts with its request id and a static header set chosen once per route when
 * the route is registered: API routes get the JSON API security headers and
 * `Cache-Control: no-store` (purchases, orders, admin, health, metrics, and every error, must
 * never be answered by a cache); the Swagger UI pages get the same without the CSP that would
 * stop their scripts. A route that may be cached (GET /products/:id) overrides Cache-Control on
 * success. Per request this is one synchronous hook copying a frozen object: no lookup, no I/O.
 * The hook runs before any other that can answer (shutdown gate, sold-out shortcut), so their
 * answers carry the same headers.
 */
export function installEdgeHeaders(fastify: FastifyInstance): void {
  const api: HeaderSet = Object.freeze({ ...jsonApiSecurityHeaders(), 'cache-control': 'no-store' });
  const docs = docsPageSecurityHeaders();
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith(DOCS_PREFIX)) route.config = { ...route.config, edgeHeaders: docs };
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    reply.headers(request.routeOptions.config?.edgeHeaders ?? api);
    done();
  });
}
