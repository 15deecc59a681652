import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ErrorCode, errorBody } from '../common/errors/error-code';
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
 * is 9464) a second HTTP server on that port feeds the requests of operations routes to the same
 * Fastify router and answers any other 404 itself; an operations route asked on PORT is an unknown
 * route there (404, by a hook of those routes alone). So a public route's request meets nothing of
 * this split. Without METRICS_PORT (development) everything is served on PORT. Call before app.init().
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
  /** `METHOD path` of each operations route as registered (they are static paths). */
  const opsRoutes = new Set<string>();
  const refuseOffOpsListener = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (fromOpsListener.has(request.raw)) return done();
    reply.callNotFound();
  };
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (!isOpsRoute(route.config)) return;
    for (const method of [route.method].flat()) opsRoutes.add(`${method} ${route.url}`);
    const hooks = append(route.onRequest as Hook | Hook[] | undefined, refuseOffOpsListener);
    route.onRequest = hooks as RouteOptions['onRequest'];
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
          if (!opsRoutes.has(`${req.method} ${(req.url ?? '').split('?')[0]}`)) return notFound(res);
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

/** The operations port's answer to anything but an operations route, in the contract's shape. */
function notFound(res: ServerResponse): void {
  const body = JSON.stringify(errorBody(ErrorCode.NotFound, 'only the operations routes are served on this port'));
  res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(body);
}
