import { Injectable } from '@nestjs/common';
import { Counter, register } from 'prom-client';
import type { FastifyInstance, FastifyReply, RouteOptions } from 'fastify';
import { AllExceptionsFilter } from '../common/errors/all-exceptions.filter';
import { EarlyRetryException, RateClock, RetryNotBefore } from '../common/throttling/rate-limiter';
import { PurchaseBatches } from '../purchase-batches/purchase-batches.service';
import { OrderView } from './order.view';
import { PENDING_RETRY_AFTER_S, purchasePending } from './purchase-outcome/purchase-pending.view';
import type { PurchaseResult } from './purchase.service';

/**
 * What an answer is about: every purchase has an id and a deadline, and may hold an admission; its
 * user and product once the pipeline has read them.
 */
interface Answered {
  purchaseId: string;
  deadlineAt: number;
  user?: { id: string };
  productId?: string;
  admission?: { settle(status: number): Promise<void> };
}

/** A purchase's outcome: what PurchaseService said, or the refusal (any error) it met on the way. */
export type ResultOrRefusal = { result: PurchaseResult } | { error: unknown };

/**
 * The one writer of every purchase answer, whether the pipeline refused it or the service
 * decided it: the status and body (201 the order, 202 PURCHASE_PENDING with Location, or the
 * contract's error), `Purchase-Id` on every one, `Retry-After` where the contract asks for it.
 * It also counts the outcome (purchases_total), notes an answer later than the deadline, and settles the
 * waiting-room admission the purchase took with the answer's status.
 */
@Injectable()
export class PurchaseAnswer {
  /** Purchases by outcome: created, replayed, pending, or the contract code of the refusal. */
  private readonly outcomes: Counter<'outcome'> =
    (register.getSingleMetric('purchases_total') as Counter<'outcome'> | undefined) ??
    new Counter({ name: 'purchases_total', help: 'Purchase attempts by outcome', labelNames: ['outcome'] });
  /** Where a pending purchase is asked about: the status route's path as registered. */
  private statusRoute = '/purchases/:purchaseId';
  /** The Retry-After of each 429/503 answered, per user and product: the pipeline's rate stage refuses retries before it. */
  readonly retries: RetryNotBefore;

  constructor(
    private readonly batches: PurchaseBatches,
    private readonly errors: AllExceptionsFilter,
    clock: RateClock,
  ) {
    this.retries = new RetryNotBefore(() => clock.now());
  }

  /** Learns the path of the route marked @PurchaseStatusRoute() as Nest registers it (call before init()). */
  followStatusRoute(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (route: RouteOptions) => {
      if (route.config?.purchaseStatus === true && route.method === 'GET') this.statusRoute = route.url;
    });
  }

  async write(reply: FastifyReply, purchase: Answered, outcome: ResultOrRefusal): Promise<void> {
    const { status, body, headers } = 'result' in outcome ? this.ofResult(outcome.result) : this.ofError(outcome.error);
    if ('error' in outcome) this.noteRetryAfter(purchase, outcome.error, headers['Retry-After']);
    this.outcomes.inc({
      outcome: 'result' in outcome ? outcomeLabel(outcome.result) : String((body as { code?: unknown }).code),
    });
    this.batches.countIfLate(purchase.deadlineAt);
    if (purchase.admission) await purchase.admission.settle(status);
    void reply.code(status).header('Purchase-Id', purchase.purchaseId).headers(headers).send(body);
  }

  /**
   * A 429 or 503 with Retry-After (every refusal that carries one) sets when this user may next try
   * this product; an early retry's own refusal does not move that moment.
   */
  private noteRetryAfter(purchase: Answered, error: unknown, retryAfter: string | undefined): void {
    if (retryAfter === undefined || !purchase.user || !purchase.productId || error instanceof EarlyRetryException)
      return;
    this.retries.note(purchase.user.id, purchase.productId, Number(retryAfter));
  }

  private ofResult(result: PurchaseResult): {
    status: number;
    body: OrderView | object;
    headers: Record<string, string>;
  } {
    if (result.kind === 'order') return { status: 201, body: result.order, headers: {} };
    return {
      status: 202,
      body: purchasePending(result.purchaseId),
      headers: {
        Location: this.statusRoute.replace(':purchaseId', encodeURIComponent(result.purchaseId)),
        'Retry-After': String(PENDING_RETRY_AFTER_S),
      },
    };
  }

  private ofError(error: unknown): {
    status: number;
    body: { statusCode: number; code: string };
    headers: Record<string, string>;
  } {
    const { body, retryAfterS } = this.errors.toAnswer(error);
    return {
      status: body.statusCode,
      body,
      headers: retryAfterS === undefined ? {} : { 'Retry-After': String(retryAfterS) },
    };
  }
}

const outcomeLabel = (result: PurchaseResult): string =>
  result.kind === 'pending' ? 'pending' : result.replayed ? 'replayed' : 'created';
