import { Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify';
import { reportBackgroundFailure } from '../metrics/background-failures';
import { AdmittedRequest } from './admission.guard';
import { QueueStore } from './queue-store';
import { WaitingRoomMetrics } from './waiting-room.metrics';

const PURCHASE_ROUTE = '/products/:id/purchase';

/**
 * Settles the admission a purchase took (WaitingRoomAdmissionGuard), before its answer leaves:
 * a 201 marks the ticket BOUGHT, so a buyer who polls after the 201 sees it; a refusal gives the
 * admission back (nothing was done); a 202 PURCHASE_PENDING leaves it taken until it expires,
 * since its order may yet exist.
 *
 * The hook is the purchase route's own: it is attached as Nest registers that route (this
 * provider is built before the routes are), so no other route's answers pass through it.
 * If settling fails (Redis gone just then) the answer stands; the admission then lapses on its
 * TTL, which only delays the next admission.
 */
@Injectable()
export class PurchaseReceipts {
  private readonly log = new Logger(PurchaseReceipts.name);

  constructor(
    adapterHost: HttpAdapterHost,
    private readonly store: QueueStore,
    private readonly metrics: WaitingRoomMetrics,
  ) {
    const fastify = adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addHook('onRoute', (route: RouteOptions) => {
      if (route.url !== PURCHASE_ROUTE || route.method !== 'POST') return;
      const own = route.onSend ? [route.onSend].flat() : [];
      route.onSend = [...own, this.onSend];
    });
  }

  private readonly onSend: onSendHookHandler = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const admission = (request as AdmittedRequest).waitingRoomAdmission;
    if (!admission || reply.statusCode === 202) return done(null, payload);
    void this.settle(admission.productId, admission.place, reply.statusCode === 201).then(() => done(null, payload));
  };

  private async settle(productId: string, place: number, bought: boolean): Promise<void> {
    try {
      if (!bought) await this.store.release(productId, place);
      else if (await this.store.receipt(productId, place)) this.metrics.receipts.inc();
    } catch (error) {
      reportBackgroundFailure(this.log, 'waiting-room-receipt', `product ${productId} place ${place}`, error);
    }
  }
}
