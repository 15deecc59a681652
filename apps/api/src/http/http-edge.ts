import fastifyCors from '@fastify/cors';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';
import type { FastifyHttpOptions, FastifyServerOptions } from 'fastify';
import type { EdgeConfig, TrustProxy } from '../config/edge-config';
import { corsOptions } from './cors-options';
import { installEdgeHeaders } from './edge-hooks';
import { requestIdOf } from './edge-hooks';
import { requestTimeBound } from './request-time-bound';

/**
 * What every response tells browsers, caches and proxies: its request id, the security headers,
 * its cacheability, and CORS for the configured origins (@fastify/cors, registered on the root
 * instance through Nest's adapter). Call before any hook that may answer a request itself.
 */
export async function installHttpEdge(app: NestFastifyApplication, edge: EdgeConfig): Promise<void> {
  installEdgeHeaders(app.getHttpAdapter().getInstance());
  const cors = corsOptions(edge.corsOrigins);
  if (cors) await app.register(fastifyCors, cors);
}

/**
 * The server options of the edge: which proxies to believe, where request ids come from, and how
 * long a request may take to arrive.
 */
export function edgeServerOptions(
  edge: EdgeConfig,
): Pick<FastifyHttpOptions<Server>, 'trustProxy' | 'genReqId' | 'requestIdHeader' | 'requestTimeout' | 'http'> {
  return {
    // Off unless configured: otherwise any client could choose the address it is limited and logged by.
    trustProxy: fastifyTrustProxy(edge.trustProxy),
    // The caller's X-Request-Id when acceptable, else a UUID; the logger reads the same id.
    genReqId: requestIdOf,
    requestIdHeader: false,
    ...requestTimeBound(edge.requestBodyTimeoutMs),
  };
}

/**
 * Fastify's `trustProxy` for TRUST_PROXY. A hop count trusts the last N hops whoever they are
 * (the Fastify version in use no longer reads a bare number, so it becomes a trust function):
 * only for deployments no client reaches except through those proxies; addresses are safer.
 */
function fastifyTrustProxy(trust: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}
