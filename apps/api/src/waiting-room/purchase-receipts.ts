import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { reportBackgroundFailure } from '../metrics/background-failures';
import { AdmittedRequest } from './admission.guard';
import { QueueStore } from './queue-store';
import { WaitingRoomMetrics } from './waiting-room.metrics';

/**
 * Marks a ticket BOUGHT once its admission bought something: an onSend hook sees the 201 of a
 * purchase that passed WaitingRoomAdmissionGuard and records it before the answer leaves, so a
 * buyer who polls after the 201 sees BOUGHT, and the place stops counting as outstanding
 * (the leader may then admit the next ticket). Every other answer passes untouched.
 *
 * If the record fails (Redis gone just then) the order stands; the admission then simply
 * expires on its TTL, which only delays the next admission.
 */
@Injectable()
export class PurchaseReceipts implements OnModuleInit {
  private readonly log = new Logger(PurchaseReceipts.name);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly store: QueueStore,
    private readonly metrics: WaitingRoomMetrics,
  ) {}

  onModuleInit(): void {
    // Hooks added before the server is ready apply to every route (Fastify builds them at ready).
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
      const admission = (request as AdmittedRequest).waitingRoomAdmission;
      if (!admission || reply.statusCode !== 201) return done(null, payload);
      this.record(admission.productId, admission.place).then(() => done(null, payload));
    });
  }

  private async record(productId: string, place: number): Promise<void> {
    try {
      if (await this.store.receipt(productId, place)) this.metrics.receipts.inc();
    } catch (error) {
      reportBackgroundFailure(this.log, 'waiting-room-receipt', `product ${productId} place ${place}`, error);
    }
  }
}
