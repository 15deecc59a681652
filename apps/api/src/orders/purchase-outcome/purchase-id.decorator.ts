import { randomUUID } from 'node:crypto';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isIdempotencyKey } from '../idempotency-key';

/** An id for a purchase that came without an Idempotency-Key; `p-` keeps it apart from the common keys. */
export const generatePurchaseId = (): string => `p-${randomUUID()}`;

/**
 * The purchase's id, set as the `Purchase-Id` header of whatever the answer turns out to be: the
 * Idempotency-Key when it is well formed, else a generated id (a malformed key is then refused by
 * the handler, still with an id to quote). Evaluated before the body pipe can refuse.
 */
export const PurchaseId = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const http = context.switchToHttp();
  const key = http.getRequest<FastifyRequest>().headers['idempotency-key'];
  const purchaseId = typeof key === 'string' && isIdempotencyKey(key) ? key : generatePurchaseId();
  void http.getResponse<FastifyReply>().header('Purchase-Id', purchaseId);
  return purchaseId;
});
