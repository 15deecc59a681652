import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TokenVerifier } from '../../auth/token-verifier';
import { ErrorCode, errorBody, STATUS_OF } from '../../common/errors/error-code';
import { ProductCatalog } from '../../inventory/product-catalog.service';
import { isSaleOpen } from '../../inventory/product.view';
import { PurchaseMetrics } from '../purchase.metrics';
import { EarlyRefusals } from './early-refusals';
import { generatePurchaseId } from '../purchase-outcome/purchase-id.decorator';

const ROUTE = '/products/:id/purchase';

/**
 * The sold-out fast path. Once a product is sold out, nearly every purchase is a refusal, and
 * the refusal's cost is mostly the framework's (routing, guards, pipes, an exception). This hook
 * answers the plainest case before all that: a purchase with a valid token and a well-formed
 * body for one unit, without Idempotency-Key (a replay must be looked up), of a product whose sale
 * is open and that this process saw sold out a moment ago. Anything else goes through the normal
 * pipeline, which would give the same answer here.
 */
export function installSoldOutShortcut(fastify: FastifyInstance, deps: { tokens: TokenVerifier; early: EarlyRefusals; catalog: ProductCatalog; metrics: PurchaseMetrics }): void {
  const body = JSON.stringify(errorBody(ErrorCode.SoldOut, 'this product is sold out'));
  fastify.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (request.method !== 'POST' || request.routeOptions.url !== ROUTE || request.headers['idempotency-key'] !== undefined) return done();
    const productId = (request.params as { id?: string }).id;
    if (!productId || !deps.early.knownSoldOut(productId) || !isOneUnitBody(request.body)) return done();
    const terms = deps.catalog.knownTerms(productId);
    if (!terms || !isSaleOpen(terms, Date.now())) return done();
    try {
      deps.tokens.verify(request.headers.authorization);
    } catch {
      return done(); // let the guard answer 401 its usual way
    }
    deps.metrics.countRefusal(ErrorCode.SoldOut);
    void reply.code(STATUS_OF[ErrorCode.SoldOut]).header('content-type', 'application/json; charset=utf-8').header('Purchase-Id', generatePurchaseId()).send(body);
  });
}

/** `{}`, `{"quantity": 1}` or no body: one unit, which every per-user limit allows. */
function isOneUnitBody(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 0 || (keys.length === 1 && (value as { quantity?: unknown }).quantity === 1);
}
