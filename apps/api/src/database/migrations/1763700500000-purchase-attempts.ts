import { MigrationInterface, QueryRunner } from 'typeorm';
import { CREATE_FUNCTION as WITHOUT_ATTEMPTS } from './1763700400000-set-based-purchase-batch';

/**
 * Truth at the commit boundary: every run of purchase_batch is an attempt with its own id, and its
 * first act is to insert that id into purchase_attempts. When the reply to an attempt is lost
 * (client timeout, connection reset after the statement went out), the instance inserts the same
 * id itself: that insert waits while the attempt is still running, and once it is in, the attempt
 * can no longer commit (a late arrival finds its id taken and does nothing). After that the
 * attempt's outcome is final and the orders are read back by purchase id.
 *
 * Every order now carries its purchase id in idempotency_key: the buyer's Idempotency-Key, or an
 * id the instance generated (p_purchase_ids; those are unique by construction, so they skip the
 * key lookups).
 */
export const CREATE_FUNCTION = `
CREATE OR REPLACE FUNCTION purchase_batch(
  p_product_id bigint, p_segment int, p_fence bigint,
  p_users varchar[], p_quantities int[], p_keys varchar[], p_hashes varchar[], p_payment_ttl_s int,
  p_purchase_ids varchar[], p_attempt uuid)
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
  -- The attempt's tombstone: if the resolver of a lost reply got here first, this attempt can no
  -- longer do anything; if this attempt got here first, the resolver waits for it to end.
  INSERT INTO purchase_attempts (id) VALUES (p_attempt) ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    RETURN QUERY SELECT g::int, 'SUPERSEDED', NULL::bigint, NULL::timestamptz, NULL::timestamptz, NULL::int
                   FROM generate_subscripts(p_users, 1) AS g;
    RETURN;
  END IF;
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
    SELECT v_ids[c], p_product_id, p_segment, p_users[c], p_quantities[c], 'PENDING_PAYMENT', coalesce(p_keys[c], p_purchase_ids[c]), p_hashes[c], v_now, v_expires
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

const OLD_SIGNATURE = 'purchase_batch(bigint, int, bigint, varchar[], int[], varchar[], varchar[], int)';
const NEW_SIGNATURE =
  'purchase_batch(bigint, int, bigint, varchar[], int[], varchar[], varchar[], int, varchar[], uuid)';

export class PurchaseAttempts1763700500000 implements MigrationInterface {
  name = 'PurchaseAttempts1763700500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'CREATE TABLE purchase_attempts (id uuid PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now())',
    );
    // Old attempts are pruned by age (AttemptPruner).
    await db.query('CREATE INDEX purchase_attempts_created_at ON purchase_attempts (created_at)');
    await db.query(`DROP FUNCTION ${OLD_SIGNATURE}`);
    await db.query(CREATE_FUNCTION);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION ${NEW_SIGNATURE}`);
    await db.query(WITHOUT_ATTEMPTS);
    await db.query('DROP TABLE purchase_attempts');
  }
}
