import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A sale nobody can rig: its commitment (products.sale_commitment, fixed at creation), the draw of
 * its start shuffle (sale_draws: the beacon round's signature or the fallback, decided once) and
 * the hash chain of the admin actions on it (sale_admin_actions). Postgres keeps each as written:
 * a trigger refuses any change of what decides the order once a sale is committed (commitment,
 * seed, start, waiting room), and the draws and actions are append-only. Sales created before
 * this release have no commitment (they were never committed before their joins).
 */
export class SaleAudit1763700930000 implements MigrationInterface {
  name = 'SaleAudit1763700930000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE products ADD COLUMN sale_commitment jsonb');
    await db.query(`
      CREATE TABLE sale_draws (
        product_id bigint PRIMARY KEY REFERENCES products (id),
        beacon text NOT NULL CHECK (beacon IN ('VERIFIED', 'MISSING', 'NONE')),
        beacon_round bigint,
        beacon_signature bytea,
        shuffle_seed bytea NOT NULL CHECK (octet_length(shuffle_seed) = 32),
        drawn_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((beacon = 'VERIFIED') = (beacon_signature IS NOT NULL))
      )`);
    await db.query(`
      CREATE TABLE sale_admin_actions (
        product_id bigint NOT NULL REFERENCES products (id),
        seq integer NOT NULL CHECK (seq >= 1),
        at text NOT NULL,
        action text NOT NULL,
        details jsonb NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (product_id, seq)
      )`);
    await db.query(`
      CREATE FUNCTION sale_terms_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.sale_commitment IS NOT NULL AND (
             NEW.sale_commitment IS DISTINCT FROM OLD.sale_commitment
          OR NEW.waiting_room_seed IS DISTINCT FROM OLD.waiting_room_seed
          OR NEW.sale_starts_at IS DISTINCT FROM OLD.sale_starts_at
          OR NEW.waiting_room IS DISTINCT FROM OLD.waiting_room) THEN
          RAISE EXCEPTION 'the terms of committed sale % are fixed', OLD.id USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await db.query(
      'CREATE TRIGGER products_sale_terms_fixed BEFORE UPDATE ON products FOR EACH ROW EXECUTE FUNCTION sale_terms_fixed()',
    );
    await db.query(`
      CREATE FUNCTION sale_record_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'check_violation';
      END $$`);
    for (const table of ['sale_draws', 'sale_admin_actions'])
      await db.query(
        `CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION sale_record_append_only()`,
      );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE sale_admin_actions');
    await db.query('DROP TABLE sale_draws');
    await db.query('DROP FUNCTION sale_record_append_only()');
    await db.query('DROP TRIGGER products_sale_terms_fixed ON products');
    await db.query('DROP FUNCTION sale_terms_fixed()');
    await db.query('ALTER TABLE products DROP COLUMN sale_commitment');
  }
}
