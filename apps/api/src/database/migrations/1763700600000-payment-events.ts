import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payment events from the provider's webhook, one row per event id: the row is written in the
 * same transaction as the order's change, so an event is applied at most once however often the
 * provider delivers it. `result` is what the event was answered, for replays and for an answer
 * whose commit reply was lost.
 */
export class PaymentEvents1763700600000 implements MigrationInterface {
  name = 'PaymentEvents1763700600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE payment_events (
        event_id     varchar(200) PRIMARY KEY,
        order_id     bigint       NOT NULL REFERENCES orders(id),
        type         varchar(32)  NOT NULL CHECK (type IN ('payment.succeeded', 'payment.failed')),
        amount_cents bigint       NOT NULL CHECK (amount_cents >= 0),
        result       varchar(32)  NOT NULL CHECK (result IN ('PAID', 'ORDER_NOT_PAYABLE', 'FAILED_RECORDED')),
        received_at  timestamptz  NOT NULL DEFAULT now()
      )`);
    await db.query('CREATE INDEX payment_events_order_id_idx ON payment_events (order_id)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE IF EXISTS payment_events');
  }
}
