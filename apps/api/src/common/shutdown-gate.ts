import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { ErrorCode, errorBody, STATUS_OF } from './errors/error-code';

/** Flips when the app starts shutting down (the first hook Nest calls on close). */
@Injectable()
export class ShutdownState implements OnModuleDestroy {
  closing = false;

  onModuleDestroy(): void {
    this.closing = true;
  }
}

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
    void reply.code(STATUS_OF[code]).header('retry-after', '1').header('connection', 'close').header('content-type', 'application/json; charset=utf-8').send(body);
  });
}
