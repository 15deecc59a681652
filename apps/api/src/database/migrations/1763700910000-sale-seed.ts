import { MigrationInterface, QueryRunner } from 'typeorm';
import { drawSaleSeed, SALE_SEED_BYTES } from '../../sale-terms/sale-seed';

/**
 * Each sale through a waiting room keeps the seed of its pre-queue shuffle in
 * `products.waiting_room_seed`: 32 random bytes drawn when the product is created. Products
 * already sold through a waiting room draw theirs here, one each. The constraint makes Postgres
 * refuse a waiting room without its seed, so no sale can start without one committed (an
 * instance of an earlier release creating such a product meanwhile is refused: create waiting-room
 * products once every instance runs this release).
 */
export class SaleSeed1763700910000 implements MigrationInterface {
  name = 'SaleSeed1763700910000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE products ADD COLUMN waiting_room_seed bytea');
    const sales: Array<{ id: string }> = await db.query('SELECT id FROM products WHERE waiting_room IS NOT NULL');
    for (const { id } of sales)
      await db.query('UPDATE products SET waiting_room_seed = $1 WHERE id = $2', [drawSaleSeed(), id]);
    await db.query(
      `ALTER TABLE products ADD CONSTRAINT products_waiting_room_seed CHECK (waiting_room IS NULL OR coalesce(octet_length(waiting_room_seed), 0) = ${SALE_SEED_BYTES})`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE products DROP CONSTRAINT products_waiting_room_seed');
    await db.query('ALTER TABLE products DROP COLUMN waiting_room_seed');
  }
}
