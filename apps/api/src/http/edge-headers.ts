import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER } from './request-id';
import { docsPageSecurityHeaders, HeaderSet, jsonApiSecurityHeaders } from './security-headers';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The static headers every response of this route starts with (set by installEdgeHeaders). */
    edgeHeaders?: HeaderSet;
  }
}

export const DOCS_PREFIX = '/docs';

// Computed once: API routes get the JSON API security headers and no-store (purchases, orders,
// admin, health, metrics, and every error, must never be answered by a cache); the Swagger UI
// pages get the same without the CSP that would stop their scripts, and may be cached.
const API_HEADERS: HeaderSet = Object.freeze({ ...jsonApiSecurityHeaders(), 'cache-control': 'no-store' });
const DOCS_HEADERS = docsPageSecurityHeaders();

/** Starts a response with its request id and its route's static header set. */
function applyEdgeHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(REQUEST_ID_HEADER, request.id);
  reply.headers(request.routeOptions.config?.edgeHeaders ?? API_HEADERS);
}

/**
 * Every response starts with its request id and a static header set chosen once per route when
 * the route is registered. A route that may be cached (GET /products/:id) overrides
 * Cache-Control on success. Per request this is one synchronous hook copying a frozen object: no
 * lookup, no I/O. The hook runs before any other that can answer (shutdown gate, sold-out
 * shortcut), so their answers carry the same headers.
 */
export function installEdgeHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith(DOCS_PREFIX)) route.config = { ...route.config, edgeHeaders: DOCS_HEADERS };
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    applyEdgeHeaders(request, reply);
    done();
  });
}

type FrameworkErrorHandler = (error: never, request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Fastify answers a request it cannot route (a broken URL, an over-long parameter) through its
 * `frameworkErrors` handler without running any hook: this gives those answers the same request
 * id and static headers as every other.
 */
export function withEdgeHeaders<H extends FrameworkErrorHandler>(handler: H): H {
  return ((error: never, request: FastifyRequest, reply: FastifyReply) => {
    applyEdgeHeaders(request, reply);
    handler(error, request, reply);
  }) as H;
}
