import { MigrationInterface, QueryRunner } from 'typeorm';
import { CREATE_FUNCTION as ROW_BY_ROW_FUNCTION } from './1763700300000-row-lock-order';

/**
 * purchase_batch decides a batch in memory and writes it with a statement per table: one insert
 * of all its orders, one update of its quota rows, one of the stock row. The row-by-row version
 * ran an upsert and an insert for every purchase; for batches of 100 new buyers this one takes
 * about half its time in Postgres. A purchase with an idempotency key still looks it up alone.
 *
 * Same answers, row for row (locks in the same order: the stock row, then the quota rows by user
 * id). One difference in a race: when another transaction commits one of the batch's idempotency
 * keys between the lookup and the insert, the statement fails with 40001 and nothing of it
 * stays; the caller runs it again (withConflictRetry) and the key then answers DUPLICATE_KEY.
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
  v_now timestamptz := now();
  v_expires timestamptz := now() + make_interval(secs => p_payment_ttl_s);
  v_users varchar[];           -- the batch's distinct users, in user-id order
  v_used int[];                -- their live quantity of this product, as the batch goes
  v_taken text[] := '{}';      -- this batch's (user, idempotency key) pairs, user || chr(1) || key
  v_outcomes text[] := '{}';   -- per purchase, as the rows returned
  v_ids bigint[] := '{}';
  v_lefts int[] := '{}';
  v_created int[] := '{}';     -- the positions of the purchases that create an order
  v_inserted int;
  j int;
BEGIN
  IF p_segment IS NULL THEN
    SELECT p.per_user_limit, p.lock_fence, p.stock INTO v_limit, v_fence, v_stock FROM products p WHERE p.id = p_product_id FOR UPDATE;
  ELSE
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
    WITH locked AS (
      INSERT INTO user_product_quota AS q (user_id, product_id, quantity)
      SELECT u.user_id, p_product_id, 0 FROM (SELECT DISTINCT unnest(p_users) AS user_id) u ORDER BY u.user_id
      ON CONFLICT (user_id, product_id) DO UPDATE SET quantity = q.quantity
      RETURNING q.user_id, q.quantity)
    SELECT array_agg(l.user_id), array_agg(l.quantity) INTO v_users, v_used FROM locked l;
  END IF;
  -- Each purchase in arrival order, in memory: a replayed key, then the stock, then the limit.
  FOR i IN 1 .. coalesce(array_length(p_users, 1), 0) LOOP
    IF p_keys[i] IS NOT NULL AND (p_users[i] || chr(1) || p_keys[i] = ANY (v_taken)
        OR EXISTS (SELECT 1 FROM orders o WHERE o.user_id = p_users[i] AND o.idempotency_key = p_keys[i])) THEN
      v_outcomes[i] := 'DUPLICATE_KEY';
    ELSIF v_left < p_quantities[i] THEN
      v_outcomes[i] := 'SOLD_OUT';
    ELSE
      j := array_position(v_users, p_users[i]);
      IF p_quantities[i] > v_limit OR v_used[j] + p_quantities[i] > v_limit THEN
        v_outcomes[i] := 'PER_USER_LIMIT';
      ELSE
        v_used[j] := v_used[j] + p_quantities[i];
        v_left := v_left - p_quantities[i];
        IF p_keys[i] IS NOT NULL THEN v_taken := v_taken || (p_users[i] || chr(1) || p_keys[i]); END IF;
        v_outcomes[i] := 'CREATED';
        v_ids[i] := nextval('orders_id_seq');
        v_created := v_created || i;
      END IF;
    END IF;
    v_lefts[i] := v_left;
  END LOOP;
  IF cardinality(v_created) > 0 THEN
    INSERT INTO orders AS o (id, product_id, segment, user_id, quantity, status, idempotency_key, request_hash, created_at, expires_at)
    SELECT v_ids[c], p_product_id, p_segment, p_users[c], p_quantities[c], 'PENDING_PAYMENT', p_keys[c], p_hashes[c], v_now, v_expires
      FROM unnest(v_created) AS c
    ON CONFLICT (user_id, idempotency_key) DO NOTHING;
    GET DIAGNOSTICS v_inserted = ROW_COUNT;
    -- Another transaction committed one of these keys after the lookup above (the same buyer's
    -- batch for another product: keys are unique per buyer): nothing of this batch stays, and
    -- the caller runs it again, when the lookup sees that order and answers DUPLICATE_KEY.
    IF v_inserted < cardinality(v_created) THEN
      RAISE EXCEPTION 'an idempotency key of this batch was committed meanwhile' USING ERRCODE = 'serialization_failure';
    END IF;
    -- The rows exist and were locked above; each gets its new quantity in one statement. Written
    -- as an upsert so that every row is found through the key's index: a join's plan, cached by
    -- the session while the table was small, would scan the whole table for every batch.
    INSERT INTO user_product_quota AS q (user_id, product_id, quantity)
    SELECT d.user_id, p_product_id, d.used FROM unnest(v_users, v_used) AS d(user_id, used)
    ON CONFLICT (user_id, product_id) DO UPDATE SET quantity = EXCLUDED.quantity WHERE q.quantity <> EXCLUDED.quantity;
  END IF;
  IF (v_left <> v_stock OR (p_fence IS NOT NULL AND v_fence < p_fence)) AND p_segment IS NULL THEN
    UPDATE products SET stock = v_left, lock_fence = GREATEST(lock_fence, coalesce(p_fence, lock_fence)), updated_at = now()
     WHERE id = p_product_id;
  ELSIF v_left <> v_stock OR (p_fence IS NOT NULL AND v_fence < p_fence) THEN
    UPDATE product_segments SET stock = v_left, lock_fence = GREATEST(lock_fence, coalesce(p_fence, lock_fence))
     WHERE product_id = p_product_id AND segment = p_segment;
  END IF;
  RETURN QUERY SELECT g::int, v_outcomes[g], v_ids[g], CASE WHEN v_ids[g] IS NULL THEN NULL ELSE v_now END,
                      CASE WHEN v_ids[g] IS NULL THEN NULL ELSE v_expires END, v_lefts[g]
                 FROM generate_subscripts(p_users, 1) AS g;
END
$fn$`;

export class SetBasedPurchaseBatch1763700400000 implements MigrationInterface {
  name = 'SetBasedPurchaseBatch1763700400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(CREATE_FUNCTION);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(ROW_BY_ROW_FUNCTION);
  }
}
