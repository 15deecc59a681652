import type { FastifyInstance } from 'fastify';
import type { Level, Logger } from 'pino';

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
 * hook. Nothing is allocated for a request whose line would not be written: no per-request child
 * logger and no async context, which cost a third of a liveness request's CPU.
 */
export function installRequestLog(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const level = requestLogLevel(reply.statusCode);
    if (logger.isLevelEnabled(level)) {
      logger[level](
        { req: { id: request.id, method: request.method, url: request.url }, res: { statusCode: reply.statusCode }, responseTime: Math.round(reply.elapsedTime) },
        'request completed',
      );
    }
    done();
  });
}
