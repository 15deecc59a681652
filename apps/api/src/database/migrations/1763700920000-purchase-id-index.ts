import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Purchase ids (orders.idempotency_key) are unique per buyer, and an admin may look one up without
 * naming the buyer: every order carrying it. The unique constraint's index led with user_id, so
 * that question scanned the whole table. The same constraint now leads with the key: every lookup
 * of a buyer's key (both columns) uses it as before, `ON CONFLICT (user_id, idempotency_key)`
 * still finds it (Postgres matches the columns in any order), and a lookup by key alone becomes
 * an index scan, with no second index to keep up on every purchase. Rebuilding it locks `orders`
 * for the time of one index build: run it between sales.
 */
export class PurchaseIdIndex1763700920000 implements MigrationInterface {
  name = 'PurchaseIdIndex1763700920000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE orders DROP CONSTRAINT orders_idempotency_unique, ADD CONSTRAINT orders_idempotency_unique UNIQUE (idempotency_key, user_id)',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE orders DROP CONSTRAINT orders_idempotency_unique, ADD CONSTRAINT orders_idempotency_unique UNIQUE (user_id, idempotency_key)',
    );
  }
}
