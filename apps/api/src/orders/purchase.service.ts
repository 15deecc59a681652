import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { dependencyUnavailable, productNotFound } from '../common/errors/app.exception';
import { StaleFenceException } from '../common/errors/stale-fence.error';
import { SaleTerms } from '../inventory/product.view';
import { PurchaseBatches } from '../purchase-batches/purchase-batches.service';
import { StockUnit, stockLockKey } from '../stock/stock-keys';
import { BatchItem, BatchOutcome, StockService } from '../stock/stock.service';
import { OrderRepository } from './order-repository';
import { asFirstAnswered, OrderRow, OrderView } from './order.view';
import type { Purchase } from './purchase-pipeline';
import { keyReused, perUserLimit, soldOut } from './purchase-errors';
import { SegmentRouter } from './segment-router';
import { UsedPurchaseKeys } from './used-purchase-keys';

/** What makes two requests "the same request" for one key. */
export const purchaseFingerprint = (productId: string, quantity: number): string =>
  createHash('sha256').update(`purchase\n${productId}\n${quantity}`).digest('hex');

/** An order (new, or replayed for a retried key); or PENDING: the outcome is not known yet (202). */
export type PurchaseResult =
  { kind: 'order'; order: OrderView; replayed: boolean } | { kind: 'pending'; purchaseId: string };

/**
 * A purchase the pipeline let through: handed to its stock unit's batcher (a segment's, picked by
 * SegmentRouter, for a segmented product), whose batches StockService commits under the unit's
 * lock, then its batch outcome made a result. Answered only after the commit, by PurchaseAnswer.
 */
@Injectable()
export class PurchaseService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly stock: StockService,
    private readonly segments: SegmentRouter,
    private readonly batches: PurchaseBatches,
    private readonly usedKeys: UsedPurchaseKeys,
  ) {}

  async purchase(request: Purchase): Promise<PurchaseResult> {
    const { user, productId, quantity, idempotencyKey, purchaseId, terms } = request;
    const fingerprint = idempotencyKey ? purchaseFingerprint(productId, quantity) : null;
    const item: BatchItem = {
      userId: user.id,
      quantity,
      idempotencyKey: idempotencyKey ?? null,
      requestHash: fingerprint,
      purchaseId,
    };
    // Marked before it is batched, so before it can commit: a refused retry of the key then finds its order.
    if (idempotencyKey) await this.usedKeys.record(user.id, idempotencyKey);
    const result =
      terms.segments > 1
        ? await this.segments.route(productId, terms.segments, (segment) =>
            this.batch({ productId, segment }, item, request),
          )
        : await this.batch({ productId, segment: null }, item, request);
    return this.answer(request, terms, fingerprint, result);
  }

  /**
   * A retry of a purchase that already made an order gets that order (its first answer), not
   * today's refusal. The orders are searched only for a key this user has sent to be bought (one
   * Redis read says), so refused retries with fresh keys cost Postgres nothing.
   */
  async replayOf(request: Purchase): Promise<PurchaseResult | undefined> {
    if (!request.idempotencyKey || !(await this.usedKeys.mayHaveUsed(request.user.id, request.idempotencyKey)))
      return undefined;
    const prior = await this.orders.findByIdempotencyKey(request.user.id, request.idempotencyKey);
    return prior && this.replay(prior, purchaseFingerprint(request.productId, request.quantity));
  }

  /**
   * Hands the purchase to its unit's batcher, whose batches StockService serves under the unit's
   * lock within the window its oldest purchase's cut-off leaves.
   */
  private batch(unit: StockUnit, item: BatchItem, purchase: Purchase): Promise<BatchOutcome> {
    return this.batches.submit(stockLockKey(unit), unit, item, purchase, this.stock);
  }

  private async answer(
    request: Purchase,
    terms: SaleTerms,
    fingerprint: string | null,
    result: BatchOutcome,
  ): Promise<PurchaseResult> {
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
