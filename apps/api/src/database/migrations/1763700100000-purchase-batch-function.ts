import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * purchase_batch: a batch of purchases of one product in ONE statement, hence one transaction and
 * one round trip. Each purchase is its own all-or-nothing unit (a PL/pgSQL exception block is a
 * subtransaction): stock, the per-user quota and the order row move together or not at all, and
 * one purchase failing leaves the others untouched. The product row is locked first and the
 * fencing token checked once for the batch, so a holder whose lease was lost changes nothing.
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
  v_after int;
  v_claimed int;
  i int;
BEGIN
  SELECT p.per_user_limit, p.lock_fence, p.stock INTO v_limit, v_fence, v_stock FROM products p WHERE p.id = p_product_id FOR UPDATE;
  IF NOT FOUND OR (p_fence IS NOT NULL AND v_fence > p_fence) THEN
    RETURN QUERY SELECT g::int, CASE WHEN v_limit IS NULL THEN 'NOT_FOUND' ELSE 'STALE_FENCE' END,
                        NULL::bigint, NULL::timestamptz, NULL::timestamptz, v_stock
                   FROM generate_subscripts(p_users, 1) AS g;
    RETURN;
  END IF;
  IF p_fence IS NOT NULL AND v_fence < p_fence THEN
    UPDATE products SET lock_fence = p_fence WHERE id = p_product_id;
  END IF;
  v_left := v_stock;
  FOR i IN 1 .. coalesce(array_length(p_users, 1), 0) LOOP
    idx := i; order_id := NULL; created_at := NULL; expires_at := NULL;
    BEGIN
      -- A replay of a key already used answers as the first request did, even once sold out.
      IF p_keys[i] IS NOT NULL AND EXISTS (SELECT 1 FROM orders o WHERE o.user_id = p_users[i] AND o.idempotency_key = p_keys[i]) THEN
        outcome := 'DUPLICATE_KEY'; stock_left := v_left; RETURN NEXT;
        CONTINUE;
      END IF;
      UPDATE products SET stock = stock - p_quantities[i], updated_at = now()
       WHERE id = p_product_id AND stock >= p_quantities[i]
       RETURNING stock INTO v_after;
      IF NOT FOUND THEN
        outcome := 'SOLD_OUT'; stock_left := v_left; RETURN NEXT;
        CONTINUE;
      END IF;
      INSERT INTO user_product_quota AS q (user_id, product_id, quantity)
      SELECT p_users[i], p_product_id, p_quantities[i] WHERE p_quantities[i] <= v_limit
      ON CONFLICT (user_id, product_id) DO UPDATE SET quantity = q.quantity + EXCLUDED.quantity
       WHERE q.quantity + EXCLUDED.quantity <= v_limit
      RETURNING q.quantity INTO v_claimed;
      IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'PER_USER_LIMIT';
      END IF;
      INSERT INTO orders AS o (product_id, user_id, quantity, status, idempotency_key, request_hash, expires_at)
      VALUES (p_product_id, p_users[i], p_quantities[i], 'PENDING_PAYMENT', p_keys[i], p_hashes[i], now() + make_interval(secs => p_payment_ttl_s))
      RETURNING o.id, o.created_at, o.expires_at INTO order_id, created_at, expires_at;
      v_left := v_after;
      outcome := 'CREATED'; stock_left := v_left; RETURN NEXT;
    EXCEPTION
      WHEN unique_violation THEN
        SELECT p.stock INTO v_left FROM products p WHERE p.id = p_product_id;
        outcome := 'DUPLICATE_KEY'; stock_left := v_left; order_id := NULL; RETURN NEXT;
      WHEN raise_exception THEN
        SELECT p.stock INTO v_left FROM products p WHERE p.id = p_product_id;
        outcome := 'PER_USER_LIMIT'; stock_left := v_left; order_id := NULL; RETURN NEXT;
    END;
  END LOOP;
END
$fn$`;

export class PurchaseBatchFunction1763700100000 implements MigrationInterface {
  name = 'PurchaseBatchFunction1763700100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(CREATE_FUNCTION);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP FUNCTION IF EXISTS purchase_batch(bigint, bigint, varchar[], int[], varchar[], varchar[], int)');
  }
}
