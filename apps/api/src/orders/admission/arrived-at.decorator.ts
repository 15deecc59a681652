import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { monotonicNow } from './purchase-admission';

/**
 * When the request arrived, on monotonicNow's clock: Fastify times every reply from the moment
 * the request came in, so guards, the rate limiter and body parsing count against the deadline.
 */
export const ArrivedAt = createParamDecorator((_: unknown, context: ExecutionContext): number => {
  const reply = context.switchToHttp().getResponse<FastifyReply>();
  return monotonicNow() - (reply.elapsedTime ?? 0);
});
