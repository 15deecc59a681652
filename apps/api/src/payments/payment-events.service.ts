import { HttpException, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { dependencyUnavailable, orderNotFound } from '../common/errors/app.exception';
import { withConflictRetry } from '../database/statements';
import { isOutcomeUnknown } from '../database/outcome-unknown';
import { queryRows } from '../database/query-rows';
import { readBack } from '../database/read-back';
import { PaymentEventAnswer, PaymentEventDto, PaymentResult } from './payment-event.dto';
import { amountMismatch } from './payment-errors';

interface OrderToSettle {
  status: string;
  in_time: boolean;
  total: string;
}

/**
 * Applies verified payment events. Each event is one transaction that locks the order's row (as
 * pay, cancel and the expiry job do, so a payment and an expiry of one order take turns), writes
 * the event's row (its id is the primary key: a second delivery finds it and changes nothing) and
 * marks the order PAID when it still awaits payment. A refusal (404, 422) records nothing.
 */
@Injectable()
export class PaymentEventsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async apply(event: PaymentEventDto): Promise<PaymentEventAnswer> {
    const seen = await this.recorded(this.db, event.eventId);
    if (seen) return { eventId: event.eventId, orderId: seen.orderId, result: 'ALREADY_PROCESSED' };
    try {
      return await withConflictRetry(() => this.db.transaction((tx) => this.applyIn(tx, event)));
    } catch (error) {
      if (error instanceof HttpException || !isOutcomeUnknown(error)) throw error;
      return this.afterLostAnswer(event, error);
    }
  }

  private async applyIn(tx: EntityManager, event: PaymentEventDto): Promise<PaymentEventAnswer> {
    const rows = await queryRows<OrderToSettle>(
      tx,
      `SELECT o.status, o.expires_at > now() AS in_time, (o.quantity * p.price_cents::bigint)::text AS total
         FROM orders o JOIN products p ON p.id = o.product_id WHERE o.id = $1 FOR UPDATE OF o`,
      [event.orderId],
    );
    if (!rows.length) throw orderNotFound(event.orderId);
    const order = rows[0];
    if (order.total !== String(event.amountCents)) throw amountMismatch(event.orderId, event.amountCents, order.total);
    const result: PaymentResult =
      event.type === 'payment.failed'
        ? 'FAILED_RECORDED'
        : order.status === 'PENDING_PAYMENT' && order.in_time
          ? 'PAID'
          : 'ORDER_NOT_PAYABLE';
    const inserted = await queryRows(
      tx,
      `INSERT INTO payment_events (event_id, order_id, type, amount_cents, result) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [event.eventId, event.orderId, event.type, event.amountCents, result],
    );
    if (!inserted.length) {
      // The same event, delivered twice at once: the other delivery committed it first.
      const first = await this.recorded(tx, event.eventId);
      return { eventId: event.eventId, orderId: first?.orderId ?? event.orderId, result: 'ALREADY_PROCESSED' };
    }
    if (result === 'PAID')
      await tx.query(`UPDATE orders SET status = 'PAID', paid_at = now() WHERE id = $1`, [event.orderId]);
    return { eventId: event.eventId, orderId: event.orderId, result };
  }

  /**
   * The commit's reply was lost. Waiting for the order's row lock on a fresh connection lets a
   * transaction still running end first; then the event's row says whether it happened.
   */
  private async afterLostAnswer(event: PaymentEventDto, cause: unknown): Promise<PaymentEventAnswer> {
    const stored = await readBack(this.db, async (tx) => {
      await tx.query('SELECT 1 FROM orders WHERE id = $1 FOR UPDATE', [event.orderId]);
      return this.recorded(tx, event.eventId);
    });
    if (!stored) throw Object.assign(dependencyUnavailable('the database'), { cause });
    return { eventId: event.eventId, orderId: stored.orderId, result: stored.result };
  }

  private async recorded(
    runner: DataSource | EntityManager,
    eventId: string,
  ): Promise<{ orderId: string; result: PaymentResult } | undefined> {
    const rows = await queryRows<{ order_id: string; result: PaymentResult }>(
      runner,
      'SELECT order_id::text AS order_id, result FROM payment_events WHERE event_id = $1',
      [eventId],
    );
    return rows.length ? { orderId: rows[0].order_id, result: rows[0].result } : undefined;
  }
}
