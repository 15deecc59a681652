import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE products (
        id             bigserial PRIMARY KEY,
        sku            varchar(64)  NOT NULL,
        name           varchar(200) NOT NULL,
        price_cents    integer      NOT NULL CHECK (price_cents >= 0),
        stock          integer      NOT NULL CHECK (stock >= 0),
        supplied       bigint       NOT NULL CHECK (supplied >= 0),
        per_user_limit integer      NOT NULL DEFAULT 1 CHECK (per_user_limit >= 1),
        sale_starts_at timestamptz  NULL,
        sale_ends_at   timestamptz  NULL,
        lock_fence     bigint       NOT NULL DEFAULT 0,
        created_at     timestamptz  NOT NULL DEFAULT now(),
        updated_at     timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT products_sku_unique UNIQUE (sku),
        CONSTRAINT products_sale_window CHECK (sale_starts_at IS NULL OR sale_ends_at IS NULL OR sale_ends_at > sale_starts_at)
      )`);
    await db.query(`
      CREATE TABLE orders (
        id              bigserial PRIMARY KEY,
        product_id      bigint       NOT NULL REFERENCES products(id),
        user_id         varchar(128) NOT NULL,
        quantity        integer      NOT NULL CHECK (quantity >= 1),
        status          varchar(16)  NOT NULL CHECK (status IN ('PENDING_PAYMENT', 'PAID', 'CANCELLED', 'EXPIRED')),
        idempotency_key varchar(128) NULL,
        request_hash    varchar(64)  NULL,
        created_at      timestamptz  NOT NULL DEFAULT now(),
        expires_at      timestamptz  NOT NULL,
        paid_at         timestamptz  NULL,
        closed_at       timestamptz  NULL,
        CONSTRAINT orders_idempotency_unique UNIQUE (user_id, idempotency_key)
      )`);
    // One row per user and product: the per-user limit is a conditional upsert on it.
    await db.query(`
      CREATE TABLE user_product_quota (
        user_id    varchar(128) NOT NULL,
        product_id bigint       NOT NULL REFERENCES products(id),
        quantity   integer      NOT NULL CHECK (quantity >= 0),
        PRIMARY KEY (user_id, product_id)
      )`);
    await db.query('CREATE INDEX orders_user_id_idx ON orders (user_id, id DESC)');
    await db.query('CREATE INDEX orders_product_id_idx ON orders (product_id, id DESC)');
    await db.query('CREATE INDEX orders_status_id_idx ON orders (status, id DESC)');
    await db.query(`CREATE INDEX orders_pending_expiry_idx ON orders (expires_at) WHERE status = 'PENDING_PAYMENT'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE IF EXISTS user_product_quota');
    await db.query('DROP TABLE IF EXISTS orders');
    await db.query('DROP TABLE IF EXISTS products');
  }
}
