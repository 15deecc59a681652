import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Segmented stock (the seeds' 分段锁): a product may split its units across K segment rows, each
 * with its own lock and fencing token, so K holders can sell it at once. `products.segments` says
 * how many; for a segmented product the units live in `product_segments` and `products.stock`
 * stays 0. An order remembers its segment so that a cancel or expiry returns units to it.
 * purchase_batch gains the segment to work on (NULL: the product row itself); otherwise it is
 * the function of the previous migration.
 */
const CREATE_SEGMENTED_FUNCTION = `
CREATE OR REPLACE FUNCTION purchase_batch(
  p_product_id bigint, p_segment int, p_fence bigint,
  p_users varchar[], p_quantities int[], p_keys varchar[], p_hashes varchar[], p_payment_ttl_s int)
RETURNS TABLE (idx int, outcome text, order_id bigint, created_at timestamptz, expires_at timestamptz, stock_left int)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_limit int;
  v_fence bigint;
  v_stock int;
  v_left int;
  v_claimed int;
  v_expires timestamptz := now() + make_interval(secs => p_payment_ttl_s);
  i int;
BEGIN
  IF p_segment IS NULL THEN
    SELECT p.per_user_limit, p.lock_fence, p.stock INTO v_limit, v_fence, v_stock FROM products p WHERE p.id = p_product_id FOR UPDATE;
  ELSE
    -- A segmented product: this batch owns one segment row; the product row is only read.
    SELECT p.per_user_limit, s.lock_fence, s.stock INTO v_limit, v_fence, v_stock
      FROM product_segments s JOIN products p ON p.id = s.product_id
     WHERE s.product_id = p_product_id AND s.segment = p_segment FOR UPDATE OF s;
  END IF;
  IF NOT FOUND OR (p_fence IS NOT NULL AND v_fence > p_fence) THEN
    RETURN QUERY SELECT g::int, CASE WHEN v_limit IS NULL THEN 'NOT_FOUND' ELSE 'STALE_FENCE' END,
                        NULL::bigint, NULL::timestamptz, NULL::timestamptz, v_stock
                   FROM generate_subscripts(p_users, 1) AS g;
    RETURN;
  END IF;
  v_left := v_stock;
  FOR i IN 1 .. coalesce(array_length(p_users, 1), 0) LOOP
    idx := i; order_id := NULL; created_at := NULL; expires_at := NULL;
    IF p_keys[i] IS NOT NULL AND EXISTS (SELECT 1 FROM orders o WHERE o.user_id = p_users[i] AND o.idempotency_key = p_keys[i]) THEN
      -- A replay of a key already used answers as the first request did, even once sold out.
      outcome := 'DUPLICATE_KEY'; stock_left := v_left; RETURN NEXT;
      CONTINUE;
    END IF;
    IF v_left < p_quantities[i] THEN
      outcome := 'SOLD_OUT'; stock_left := v_left; RETURN NEXT;
      CONTINUE;
    END IF;
    INSERT INTO user_product_quota AS q (user_id, product_id, quantity)
    SELECT p_users[i], p_product_id, p_quantities[i] WHERE p_quantities[i] <= v_limit
    ON CONFLICT (user_id, product_id) DO UPDATE SET quantity = q.quantity + EXCLUDED.quantity
     WHERE q.quantity + EXCLUDED.quantity <= v_limit
    RETURNING q.quantity INTO v_claimed;
    IF NOT FOUND THEN
      outcome := 'PER_USER_LIMIT'; stock_left := v_left; RETURN NEXT;
      CONTINUE;
    END IF;
    INSERT INTO orders AS o (product_id, segment, user_id, quantity, status, idempotency_key, request_hash, expires_at)
    VALUES (p_product_id, p_segment, p_users[i], p_quantities[i], 'PENDING_PAYMENT', p_keys[i], p_hashes[i], v_expires)
    ON CONFLICT (user_id, idempotency_key) DO NOTHING
    RETURNING o.id, o.created_at, o.expires_at INTO order_id, created_at, expires_at;
    IF NOT FOUND THEN
      -- The same key committed meanwhile by another transaction: give the quota back.
      UPDATE user_product_quota SET quantity = quantity - p_quantities[i] WHERE user_id = p_users[i] AND product_id = p_product_id;
      outcome := 'DUPLICATE_KEY'; stock_left := v_left; RETURN NEXT;
      CONTINUE;
    END IF;
    v_left := v_left - p_quantities[i];
    outcome := 'CREATED'; stock_left := v_left; RETURN NEXT;
  END LOOP;
  IF (v_left <> v_stock OR (p_fence IS NOT NULL AND v_fence < p_fence)) AND p_segment IS NULL THEN
    UPDATE products SET stock = v_left, lock_fence = GREATEST(lock_fence, coalesce(p_fence, lock_fence)), updated_at = now()
     WHERE id = p_product_id;
  ELSIF v_left <> v_stock OR (p_fence IS NOT NULL AND v_fence < p_fence) THEN
    UPDATE product_segments SET stock = v_left, lock_fence = GREATEST(lock_fence, coalesce(p_fence, lock_fence))
     WHERE product_id = p_product_id AND segment = p_segment;
  END IF;
END
$fn$`;

export class SegmentedStock1763700200000 implements MigrationInterface {
  name = 'SegmentedStock1763700200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE products ADD COLUMN segments integer NOT NULL DEFAULT 1 CHECK (segments BETWEEN 1 AND 64)',
    );
    await db.query(`
      CREATE TABLE product_segments (
        product_id bigint  NOT NULL REFERENCES products(id),
        segment    integer NOT NULL CHECK (segment >= 0),
        stock      integer NOT NULL CHECK (stock >= 0),
        lock_fence bigint  NOT NULL DEFAULT 0,
        PRIMARY KEY (product_id, segment)
      )`);
    await db.query('ALTER TABLE orders ADD COLUMN segment integer NULL');
    await db.query('DROP FUNCTION purchase_batch(bigint, bigint, varchar[], int[], varchar[], varchar[], int)');
    await db.query(CREATE_SEGMENTED_FUNCTION);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      'DROP FUNCTION IF EXISTS purchase_batch(bigint, int, bigint, varchar[], int[], varchar[], varchar[], int)',
    );
    await db.query('ALTER TABLE orders DROP COLUMN segment');
    await db.query('DROP TABLE product_segments');
    await db.query('ALTER TABLE products DROP COLUMN segments');
  }
}
