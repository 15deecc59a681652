import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { OpsConfig } from '../config/ops-config';

/** Route config (Nest's @RouteConfig) of an operations route: /metrics, /health/details. */
export const OPS_ROUTE = { ops: true } as const;

type Hook = (...args: never[]) => unknown;
const append = <T extends Hook>(existing: T | T[] | undefined, hook: T): T[] => [
  ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
  hook,
];
const isOpsRoute = (config: unknown): boolean => (config as { ops?: boolean } | undefined)?.ops === true;

/** The operations listener of one app: started by main.ts, closed with the app. */
export interface OpsListener {
  /** Listens on METRICS_PORT (a no-op when the operations routes are served on PORT); resolves to the bound port. */
  listen(host: string): Promise<number | undefined>;
}

/**
 * Keeps the operations surface off the public port. With METRICS_PORT set (production's default
 * is 9464) a second HTTP server on that port feeds its requests to the same Fastify router, and
 * the routes are split by where a request arrived: operations routes answer only there (on PORT
 * they are unknown routes, 404), and every other route answers only on PORT. Without
 * METRICS_PORT (development) everything is served on PORT. Call before app.init().
 */
export function installOpsRoutes(fastify: FastifyInstance, ops: OpsConfig): OpsListener {
  const listener = opsListener(fastify, ops);
  listeners.set(fastify, listener);
  return listener;
}

const listeners = new WeakMap<FastifyInstance, OpsListener>();

/** The operations listener installOpsRoutes set up for this Fastify instance. */
export const opsListenerOf = (fastify: FastifyInstance): OpsListener =>
  listeners.get(fastify) ?? { listen: () => Promise.resolve(undefined) };

function opsListener(fastify: FastifyInstance, ops: OpsConfig): OpsListener {
  if (ops.metricsPort === undefined) return { listen: () => Promise.resolve(undefined) };
  const fromOpsListener = new WeakSet<IncomingMessage>();
  const notFound = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (fromOpsListener.has(request.raw)) return done();
    reply.callNotFound();
  };
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (isOpsRoute(route.config))
      route.onRequest = append(route.onRequest as Hook | Hook[] | undefined, notFound) as RouteOptions['onRequest'];
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (
      fromOpsListener.has(request.raw) &&
      !isOpsRoute(request.routeOptions.config) &&
      request.routeOptions.url !== undefined
    )
      return reply.callNotFound();
    done();
  });
  let server: Server | undefined;
  fastify.addHook('onClose', (_instance, done) => {
    if (!server) return done();
    server.close(() => done());
    server.closeAllConnections();
  });
  return {
    listen: (host) =>
      new Promise((resolve, reject) => {
        server = createServer((req, res) => {
          fromOpsListener.add(req);
          fastify.routing(req, res);
        });
        // Two instances on one host with the default port: say which variable to change.
        server.once('error', (error: NodeJS.ErrnoException) =>
          reject(
            error.code === 'EADDRINUSE'
              ? new Error(
                  `METRICS_PORT ${ops.metricsPort} is already in use on ${host}; give each instance on this host its own METRICS_PORT`,
                )
              : error,
          ),
        );
        server.listen(ops.metricsPort, host, () => resolve((server!.address() as AddressInfo).port));
      }),
  };
}
