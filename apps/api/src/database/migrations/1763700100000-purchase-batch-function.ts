import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * purchase_batch: a batch of purchases of one product in ONE statement, hence one transaction and
 * one round trip. Each purchase is its own all-or-nothing unit: it either takes its units, raises
 * its user's quota and inserts its order, or changes nothing and reports why; one purchase
 * failing leaves the others untouched. The product row is locked first and the fencing token
 * checked once for the batch, so a holder whose lease was lost changes nothing. Stock is tracked
 * in a variable and written once at the end: updating one row many times in a transaction makes
 * each update walk a longer version chain, and subtransactions are avoided for the same reason
 * (conditional upserts and ON CONFLICT DO NOTHING decide instead of caught exceptions).
 *
 * Arguments: product id, fence (NULL in DB-only mode), then per purchase: user id, quantity,
 * idempotency key (NULL when none), request hash (NULL when none); the payment window in seconds.
 * Returns one row per purchase: outcome CREATED | SOLD_OUT | PER_USER_LIMIT | DUPLICATE_KEY |
 * NOT_FOUND | STALE_FENCE, with the order's id and timestamps when CREATED, and the stock left.
 */
const CREATE_FUNCTION = `
CREATE OR REPLACE FUNCTION purchase_batch(
  p_product_id bigint, p_fence bigint,
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
  SELECT p.per_user_limit, p.lock_fence, p.stock INTO v_limit, v_fence, v_stock FROM products p WHERE p.id = p_product_id FOR UPDATE;
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
    INSERT INTO orders AS o (product_id, user_id, quantity, status, idempotency_key, request_hash, expires_at)
    VALUES (p_product_id, p_users[i], p_quantities[i], 'PENDING_PAYMENT', p_keys[i], p_hashes[i], v_expires)
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
  IF v_left <> v_stock OR (p_fence IS NOT NULL AND v_fence < p_fence) THEN
    UPDATE products SET stock = v_left, lock_fence = GREATEST(lock_fence, coalesce(p_fence, lock_fence)), updated_at = now()
     WHERE id = p_product_id;
  END IF;
END
$fn$`;

export class PurchaseBatchFunction1763700100000 implements MigrationInterface {
  name = 'PurchaseBatchFunction1763700100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(CREATE_FUNCTION);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      'DROP FUNCTION IF EXISTS purchase_batch(bigint, bigint, varchar[], int[], varchar[], varchar[], int)',
    );
  }
}
