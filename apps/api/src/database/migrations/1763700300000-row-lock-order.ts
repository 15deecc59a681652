import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One lock order for rows everywhere: an order's own row (cancel, expiry), then the stock row
 * (the product's or one segment's; all segments in segment order for an admin adjustment), then
 * the quota rows of (user, product) in user-id order. purchase_batch now takes its batch's quota
 * rows up front in that order; otherwise it is the function of the segmented-stock migration.
 *
 * Also the index behind GET /orders' order, newest first by createdAt, then id.
 */
export const CREATE_FUNCTION = `
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
  IF v_left > 0 THEN
    -- The one lock order for rows: the stock row (above), then this product's quota rows by
    -- user id, before any purchase of the batch touches them. Taken in arrival order instead,
    -- two batches of a segmented product (or of any product in DB-only mode) sharing two
    -- buyers could each hold one quota row and wait for the other's.
    INSERT INTO user_product_quota AS q (user_id, product_id, quantity)
    SELECT u.user_id, p_product_id, 0 FROM (SELECT DISTINCT unnest(p_users) AS user_id) u ORDER BY u.user_id
    ON CONFLICT (user_id, product_id) DO UPDATE SET quantity = q.quantity;
  END IF;
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

export class RowLockOrder1763700300000 implements MigrationInterface {
  name = 'RowLockOrder1763700300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(CREATE_FUNCTION);
    await db.query('CREATE INDEX orders_created_idx ON orders (created_at DESC, id DESC)');
    await db.query('CREATE INDEX orders_user_created_idx ON orders (user_id, created_at DESC, id DESC)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX orders_user_created_idx');
    await db.query('DROP INDEX orders_created_idx');
  }
}
