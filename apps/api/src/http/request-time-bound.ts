import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';

/**
 * How often Node looks for requests past their time. Its default (30 s) would let a request
 * outlive its bound by up to 30 s; once a second costs one walk over the open requests.
 */
export const REQUEST_CHECK_INTERVAL_MS = 1000;

/**
 * Server options that bound a whole request in time (REQUEST_BODY_TIMEOUT_MS), not only its
 * headers: a client that sends a purchase's headers and then its body a byte at a time would
 * otherwise hold its socket, and behind a balancer one of its server slots, for ever.
 *
 * Node counts `requestTimeout` from the request's first byte and, past it, emits a client error
 * ERR_HTTP_REQUEST_TIMEOUT, which the contract's client-error handler answers 408
 * REQUEST_TIMEOUT before closing the socket (fastify-error-handlers.ts). A request whose body has
 * arrived is not timed any more, however long its answer takes; an idle kept-alive socket
 * neither. Headers keep their own bound: Node's default, the lesser of 60 s and `requestTimeout`.
 *
 * Fastify overwrites the server's `requestTimeout` with its own option after creating the
 * server, so the value goes to both; the checking interval exists only as a server option.
 */
export function requestTimeBound(timeoutMs: number): Pick<FastifyHttpOptions<Server>, 'requestTimeout' | 'http'> {
  return {
    requestTimeout: timeoutMs,
    http: { requestTimeout: timeoutMs, connectionsCheckingInterval: REQUEST_CHECK_INTERVAL_MS },
  };
}
