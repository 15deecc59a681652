import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Level, Logger } from 'pino';
import { Histogram, register } from 'prom-client';
import { ErrorCode, errorBody, STATUS_OF } from '../common/errors/error-code';
import type { ShutdownState } from '../common/shutdown-gate';
import { loggedUrl } from './logged-url';
import { docsPageSecurityHeaders, HeaderSet, jsonApiSecurityHeaders } from './security-headers';

/*
 * What every request meets on its way in and out, whatever its route: its request id and static
 * headers, the shutdown gate, the bound on its body's size, then its latency metric and log line.
 * Together because their order is the point: the headers before any hook that can answer, the gate
 * before any work, the bound before the body is parsed, the metric and log line after the answer.
 */

// ---- request id
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * What a caller may choose as its request id: up to 128 characters of letters, digits and
 * `. _ : + / = -` (UUIDs, ULIDs, trace ids, base64). Anything else (too long, spaces, control
 * characters, several ids joined by a comma) is replaced, so a log line or a response header
 * never carries what a client smuggled in.
 */
const ACCEPTED = /^[A-Za-z0-9._:+/=-]{1,128}$/;

/**
 * Fastify's genReqId: the caller's X-Request-Id when acceptable, else a new UUID. Fastify calls it
 * once per request; the request's log line carries the same id (request.id, see installRequestLog
 * below), so a response and its log line can be matched.
 */
export function requestIdOf(req: IncomingMessage): string {
  const offered = req.headers[REQUEST_ID_HEADER];
  return typeof offered === 'string' && ACCEPTED.test(offered) ? offered : randomUUID();
}

// ---- static headers
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
 * lookup, no I/O. The hook runs before any other that can answer (the shutdown gate, the
 * purchase pipeline's and the waiting room's preHandlers), so their answers carry the same headers.
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

// ---- shutdown gate
/**
 * While the app drains on SIGTERM, a request that arrives on a kept-alive connection is refused
 * in the contract's shape, with Retry-After and the connection closed, so the client retries on
 * another instance. (Fastify's own closing answer has neither; it is switched off in bootstrap.)
 */
export function installShutdownGate(fastify: FastifyInstance, state: ShutdownState): void {
  const code = ErrorCode.DependencyUnavailable;
  const body = JSON.stringify(errorBody(code, 'this instance is shutting down, retry'));
  fastify.addHook('onRequest', (_request, reply, done) => {
    if (!state.closing) return done();
    void reply
      .code(STATUS_OF[code])
      .header('retry-after', '1')
      .header('connection', 'close')
      .header('content-type', 'application/json; charset=utf-8')
      .send(body);
  });
}

// ---- body size bound
/** How much of an oversized body is read and thrown away before the 413, and for how long. */
export interface DrainBounds {
  bytes: number;
  ms: number;
}

/** The bounds for a limit: 16 bodies' worth, at least 4 MiB, for at most 5 s. */
export const drainBoundsFor = (limitBytes: number): DrainBounds => ({
  bytes: Math.max(16 * limitBytes, 4 * 1024 * 1024),
  ms: 5000,
});

const tooLarge = (): Error => new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();

/**
 * Delivers the 413 for a body over the limit to a client that is still sending it. Answering at
 * once and closing (what the framework does) makes the server's kernel reset the connection while
 * the client's bytes keep arriving: the client sees EPIPE or ECONNRESET, often before it has read
 * the 413. So the rest of the body is read and discarded first, up to `bounds`, and only then is
 * the 413 sent; a body that ends within the bounds leaves a clean connection. Past the bounds the
 * answer goes out with `Connection: close` and nothing more is read (a client sending a huge body
 * may then meet the reset; it cannot make the server read forever).
 *
 * A declared Content-Length over the limit is refused without passing anything on; a chunked
 * body is passed to the parser up to the limit, then discarded the same way.
 */
export function installOversizedBodyDrain(fastify: FastifyInstance, defaultLimitBytes: number): void {
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    // A route may set its own limit; the server's applies otherwise.
    const limitBytes = request.routeOptions.bodyLimit ?? defaultLimitBytes;
    const bounds = drainBoundsFor(limitBytes);
    const declared = Number(request.headers['content-length']);
    if (declared > limitBytes) {
      void discardRest(payload, 0, bounds).then((complete) => {
        if (!complete) closeAfterAnswer(reply);
        done(tooLarge());
      });
      return;
    }
    if (request.headers['transfer-encoding'] === undefined) return done(null, payload);
    done(
      null,
      cappedBody(payload, limitBytes, bounds, () => closeAfterAnswer(reply)),
    );
  });
}

const closeAfterAnswer = (reply: FastifyReply): void => void reply.header('connection', 'close');

/**
 * Reads and drops what is left of `source`. Resolves true when it ended within the bounds, false
 * when they ran out (or the stream failed); either way it stops reading.
 */
function discardRest(source: Readable, alreadySeen: number, bounds: DrainBounds): Promise<boolean> {
  return new Promise((resolve) => {
    if (source.readableEnded) return resolve(true);
    let seen = alreadySeen;
    const settle = (complete: boolean): void => {
      clearTimeout(timer);
      source.off('data', onData).off('end', onEnd).off('error', onFailure).off('close', onFailure);
      if (!complete) source.pause();
      resolve(complete);
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > bounds.bytes) settle(false);
    };
    const onEnd = (): void => settle(true);
    const onFailure = (): void => settle(false);
    const timer = setTimeout(onFailure, bounds.ms);
    source.on('data', onData).on('end', onEnd).on('error', onFailure).on('close', onFailure);
    source.resume();
  });
}

/**
 * The body as the parser sees it: `source` up to `limitBytes`; past that, the rest is discarded
 * (discardRest) and the stream fails with the 413 error once it ended or the bounds ran out.
 */
function cappedBody(source: Readable, limitBytes: number, bounds: DrainBounds, onTruncated: () => void): Readable {
  const body = new PassThrough();
  let seen = 0;
  const onData = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen <= limitBytes) return void body.write(chunk);
    source.off('data', onData).off('end', onEnd).off('error', onError);
    source.pause();
    void discardRest(source, seen, bounds).then((complete) => {
      if (!complete) onTruncated();
      body.destroy(tooLarge());
    });
  };
  const onEnd = (): void => void body.end();
  const onError = (error: Error): void => void body.destroy(error);
  source.on('data', onData).on('end', onEnd).on('error', onError);
  return body;
}

// ---- log line
// Refusals a hot sale answers by the thousand (409 sold out / per-user limit, 429 rate limited);
// purchases_total counts them instead.
const ROUTINE_REFUSALS = new Set([409, 429]);

/**
 * Successful requests and routine refusals log at debug, so a sale does not drown the log; other
 * client errors at info, server errors at error.
 */
export function requestLogLevel(statusCode: number): Level {
  if (statusCode >= 500) return 'error';
  return statusCode >= 400 && !ROUTINE_REFUSALS.has(statusCode) ? 'info' : 'debug';
}

/**
 * One JSON line per answered request whose level is enabled, written from Fastify's onResponse
 * hook, its URL without the credentials a path may carry (logged-url.ts). Nothing is allocated for
 * a request whose line would not be written: no per-request child logger and no async context,
 * which cost a third of a liveness request's CPU.
 */
export function installRequestLog(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const level = requestLogLevel(reply.statusCode);
    if (logger.isLevelEnabled(level)) {
      logger[level](
        {
          req: { id: request.id, method: request.method, url: loggedUrl(request.routeOptions?.url, request.url) },
          res: { statusCode: reply.statusCode },
          responseTime: Math.round(reply.elapsedTime),
        },
        'request completed',
      );
    }
    done();
  });
}

// ---- latency metric
const NAME = 'http_request_duration_seconds';

/**
 * Times every response in a Fastify hook (cheaper than a Nest interceptor, and it sees 404s and
 * body-parser errors too). The route label is the route pattern, never the raw URL.
 */
export function instrumentHttp(fastify: FastifyInstance): void {
  const histogram =
    (register.getSingleMetric(NAME) as Histogram<'method' | 'route' | 'status'> | undefined) ??
    new Histogram({
      name: NAME,
      help: 'HTTP request latency',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    histogram.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
}
