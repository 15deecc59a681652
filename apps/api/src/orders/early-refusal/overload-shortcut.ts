import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TokenVerifier } from '../../auth/token-verifier';
import { stockLockKey } from '../../stock/product-lock';
import { ErrorCode } from '../../common/errors/error-code';
import { ProductCatalog } from '../../inventory/product-catalog.service';
import { PurchaseMetrics } from '../purchase.metrics';
import { monotonicNow, PurchaseAdmission } from '../admission/purchase-admission';

const ROUTE = '/products/:id/purchase';

/**
 * Refuses an overloaded purchase before the Nest pipeline. In a spike most purchases are
 * refusals, and the pipeline (guards, the shared rate limiter's Redis round trip, the sale terms,
 * the sold-out flag) costs several times a bare answer: paid for refusals, it takes the CPU that
 * admitted purchases need to finish in time. This hook asks admission what it would say about the
 * product's queue now and, if that is a refusal, answers 503 OVERLOADED at once. A request without
 * a valid token goes on to be answered 401 as usual; any other request to an overloaded product,
 * a replay or a malformed body included, is told to come back later, which is true of it too.
 * A segmented product is refused when every one of its segments' queues would refuse (a purchase
 * may be served by any segment); its segment count comes from the sale terms this process knows.
 */
export function installOverloadShortcut(
  fastify: FastifyInstance,
  deps: { tokens: TokenVerifier; admission: PurchaseAdmission; metrics: PurchaseMetrics; catalog: Pick<ProductCatalog, 'knownTerms'> },
): void {
  fastify.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (request.method !== 'POST' || request.routeOptions.url !== ROUTE) return done();
    const productId = (request.params as { id?: string }).id;
    if (!productId) return done();
    const arrivedAt = monotonicNow() - reply.elapsedTime;
    const refusal = deps.admission.precheck(unitsOf(productId, deps.catalog.knownTerms(productId)?.segments ?? 1), arrivedAt);
    if (!refusal) return done();
    try {
      deps.tokens.verify(request.headers.authorization);
    } catch {
      return done();
    }
    deps.metrics.countRefusal(ErrorCode.Overloaded);
    deps.admission.countIfLate(arrivedAt);
    void reply
      .code(refusal.getStatus())
      .header('retry-after', String(refusal.retryAfterS))
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(refusal.getResponse()));
  });
}

/** The queues that may serve a purchase of the product: its own, or each of its segments'. */
function unitsOf(productId: string, segments: number): string | string[] {
  if (segments <= 1) return stockLockKey({ productId, segment: null });
  return Array.from({ length: segments }, (_, segment) => stockLockKey({ productId, segment }));
}
