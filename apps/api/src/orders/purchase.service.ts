import { Injectable } from '@nestjs/common';
import { AuthUser } from '../auth/auth.types';
import { dependencyUnavailable, productNotFound } from '../common/errors/app.exception';
import { StaleFenceException } from '../common/errors/stale-fence.error';
import { ProductCatalog } from '../inventory/product-catalog.service';
import { SaleTerms } from '../inventory/product.view';
import { EarlyRefusals } from './early-refusal/early-refusals';
import { purchaseFingerprint } from './idempotency-key';
import { OrderRepository } from './order-repository';
import { asFirstAnswered, OrderRow, OrderView } from './order.view';
import { BatchOutcome, PurchaseBatcher } from './purchase-batcher';
import { SegmentRouter } from './segment-router';
import { monotonicNow, PurchaseAdmission } from './admission/purchase-admission';
import { keyReused, perUserLimit, soldOut } from './purchase-errors';

export interface PurchaseRequest {
  user: AuthUser;
  productId: string;
  quantity: number;
  idempotencyKey?: string;
  /** The Idempotency-Key when given, else an id generated for this purchase (see purchaseIdFor). */
  purchaseId: string;
  /** When the request arrived (monotonicNow's clock); its deadline counts from here. */
  arrivedAt?: number;
}

/** An order (new, or replayed for a retried key); or PENDING: the outcome is not known yet (202). */
export type PurchaseResult = { kind: 'order'; order: OrderView; replayed: boolean } | { kind: 'pending'; purchaseId: string };

/**
 * The purchase path of DESIGN.md: replay check, fast rejects with no lock and no SQL, then the
 * product lock and one transaction in which Postgres has the final word on stock, the per-user
 * limit and the idempotency key (see PurchaseBatcher). The answer is sent only after the commit,
 * and within PURCHASE_DEADLINE_MS of the request's arrival (else 503 OVERLOADED, nothing done).
 */
@Injectable()
export class PurchaseService {
  constructor(
    private readonly catalog: ProductCatalog,
    private readonly early: EarlyRefusals,
    private readonly orders: OrderRepository,
    private readonly batcher: PurchaseBatcher,
    private readonly segments: SegmentRouter,
    private readonly admission: PurchaseAdmission,
  ) {}

  async purchase(request: PurchaseRequest): Promise<PurchaseResult> {
    const arrivedAt = request.arrivedAt ?? monotonicNow();
    try {
      return await this.decide({ ...request, arrivedAt });
    } finally {
      this.admission.countIfLate(arrivedAt);
    }
  }

  private async decide(request: PurchaseRequest & { arrivedAt: number }): Promise<PurchaseResult> {
    const { user, productId, quantity, idempotencyKey, purchaseId, arrivedAt } = request;
    const fingerprint = idempotencyKey ? purchaseFingerprint(productId, quantity) : null;
    const terms = await this.catalog.saleTerms(productId);
    const refusal = await this.early.beforeQueue(productId, quantity, terms);
    if (refusal) {
      // A retry of a purchase that already succeeded gets its first answer, not today's refusal.
      const prior = idempotencyKey ? await this.orders.findByIdempotencyKey(user.id, idempotencyKey) : undefined;
      if (prior) return this.replay(prior, fingerprint);
      throw refusal;
    }
    const item = { userId: user.id, quantity, idempotencyKey: idempotencyKey ?? null, requestHash: fingerprint, purchaseId };
    const result =
      terms!.segments > 1
        ? await this.segments.submit(productId, terms!.segments, item, arrivedAt)
        : await this.batcher.submit({ productId, segment: null }, item, arrivedAt);
    return this.answer(request, terms!, fingerprint, result);
  }

  private async answer(request: PurchaseRequest, terms: SaleTerms, fingerprint: string | null, result: BatchOutcome): Promise<PurchaseResult> {
    switch (result.outcome) {
      case 'CREATED':
        return {
          kind: 'order',
          replayed: false,
          order: {
            id: result.orderId!,
            productId: request.productId,
            userId: request.user.id,
            quantity: request.quantity,
            status: 'PENDING_PAYMENT',
            createdAt: result.createdAt!.toISOString(),
            expiresAt: result.expiresAt!.toISOString(),
            paidAt: null,
            purchaseId: request.purchaseId,
          },
        };
      case 'SETTLED':
        // The lost attempt had committed: its order, answered as the purchase would have been.
        return { ...this.replay(result.order!, fingerprint), replayed: false };
      case 'NOT_COMMITTED':
      case 'SUPERSEDED':
        throw dependencyUnavailable('the database (nothing was done)');
      case 'PENDING':
        return { kind: 'pending', purchaseId: request.purchaseId };
      case 'DUPLICATE_KEY': {
        const prior = await this.orders.findByIdempotencyKey(request.user.id, request.idempotencyKey!);
        if (!prior) throw keyReused();
        return this.replay(prior, fingerprint);
      }
      case 'SOLD_OUT':
        throw soldOut(request.productId);
      case 'PER_USER_LIMIT':
        throw perUserLimit(terms.perUserLimit);
      case 'NOT_FOUND':
        throw productNotFound(request.productId);
      case 'STALE_FENCE':
        throw new StaleFenceException(request.productId);
    }
  }

  private replay(prior: OrderRow, fingerprint: string | null): PurchaseResult & { kind: 'order' } {
    if (prior.request_hash !== fingerprint) throw keyReused();
    return { kind: 'order', order: asFirstAnswered(prior), replayed: true };
  }
}
