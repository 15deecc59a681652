import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A product may be sold through a waiting room: `products.waiting_room` holds its settings
 * (`{ admitPerSecond, admissionTtlS, preQueueS }`), NULL for a product sold directly. The queue
 * itself lives in Redis; nothing else changes in the schema.
 */
export class WaitingRoom1763700700000 implements MigrationInterface {
  name = 'WaitingRoom1763700700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE products ADD COLUMN waiting_room jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE products DROP COLUMN waiting_room`);
  }
}
