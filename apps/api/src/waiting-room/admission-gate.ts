import { Injectable, Logger } from '@nestjs/common';
import { dependencyUnavailable } from '../common/errors/app.exception';
import { isRedisUnavailable } from '../common/errors/dependency-errors';
import { reportBackgroundFailure } from '../metrics/background-failures';
import { QueueStore } from './queue-store';
import { TicketSigner } from './ticket-signer';
import { notAdmitted } from './waiting-room-errors';
import { WaitingRoomMetrics } from './waiting-room.metrics';

/** An admission a purchase took: settle it with the purchase's answer. */
export interface TakenAdmission {
  settle(status: number): Promise<void>;
}

/**
 * The waiting room's side of a purchase of a queued product: the `Admission` header must be
 * signed by us, for this user and product, unexpired, and still outstanding in Redis, where it is
 * taken for this purchase. Settled with the answer: a 201 marks the ticket BOUGHT (a buyer who
 * polls after the 201 sees it); a refusal gives the admission back (nothing was done); a 202
 * PURCHASE_PENDING leaves it taken until it expires, since its order may yet exist. If settling
 * fails (Redis gone just then) the answer stands and the admission lapses on its TTL.
 */
@Injectable()
export class AdmissionGate {
  private readonly log = new Logger(AdmissionGate.name);

  constructor(
    private readonly store: QueueStore,
    private readonly signer: TicketSigner,
    private readonly metrics: WaitingRoomMetrics,
  ) {}

  /**
   * Takes the admission for this purchase, or throws 403 NOT_ADMITTED; 503 when Redis is unreachable
   * (the dependency-failure policy; no fallback: fairness needs the queue); any other failure as it is.
   */
  async take(productId: string, userId: string, header: unknown): Promise<TakenAdmission> {
    const claims = this.signer.readAdmission(header);
    if (!claims) throw notAdmitted('send the Admission your admitted ticket carries');
    if (claims.productId !== productId || claims.userTag !== this.signer.userTag(userId))
      throw notAdmitted('this Admission is for another user or product');
    const now = Date.now();
    if (claims.expiresAtMs <= now) throw notAdmitted('this Admission has expired');
    let holds: boolean;
    try {
      holds = await this.store.claim(productId, claims.place, claims.epoch, now);
    } catch (error) {
      if (!isRedisUnavailable(error)) throw error;
      throw Object.assign(dependencyUnavailable('redis'), { cause: error });
    }
    if (!holds) throw notAdmitted('this Admission is no longer outstanding');
    return { settle: (status) => this.settle(productId, claims.place, status) };
  }

  private async settle(productId: string, place: number, status: number): Promise<void> {
    if (status === 202) return;
    try {
      if (status !== 201) await this.store.release(productId, place);
      else if (await this.store.receipt(productId, place)) this.metrics.receipts.inc();
    } catch (error) {
      reportBackgroundFailure(this.log, 'waiting-room-receipt', `product ${productId} place ${place}`, error);
    }
  }
}
