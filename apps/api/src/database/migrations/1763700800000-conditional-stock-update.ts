import { MigrationInterface, QueryRunner } from 'typeorm';
import { CREATE_FUNCTION as WITH_LOCKED_READ } from './1763700500000-purchase-attempts';

/**
 * Stock is taken by one conditional UPDATE whose row count decides (stock >= units, fence), so no
 * lock, lost lease or concurrent writer can oversell: the WHERE holds wherever the batch was planned.
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
  v_stock int;                 -- the stock row as read, without a lock: what the batch is planned on
  v_left int;                  -- the plan's stock, as the batch goes
  v_units int;                 -- what the batch's orders take
  v_after int;                 -- the row's stock once taken from
  v_now timestamptz := now();
  v_expires timestamptz := now() + make_interval(secs => p_payment_ttl_s);
  v_users varchar[];           -- the batch's distinct users, in user-id order
  v_read int[];                -- their live quantity of this product, as read
  v_used int[];                -- the same, as the plan goes
  v_taken text[];              -- this batch's (user, idempotency key) pairs, user || chr(1) || key
  v_outcomes text[];           -- per purchase, as the rows returned
  v_lefts int[];
  v_created int[];             -- the positions of the purchases that create an order
  v_ids bigint[] := '{}';
  v_wanted int;
  v_agreed int;
  v_inserted int;
  v_round int := 0;
  j int;
  k int;
BEGIN
  -- The attempt's tombstone: if the resolver of a lost reply got here first, this attempt can no
  -- longer do anything; if this attempt got here first, the resolver waits for it to end.
  INSERT INTO purchase_attempts (id) VALUES (p_attempt) ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    RETURN QUERY SELECT g::int, 'SUPERSEDED', NULL::bigint, NULL::timestamptz, NULL::timestamptz, NULL::int
                   FROM generate_subscripts(p_users, 1) AS g;
    RETURN;
  END IF;
  LOOP
    v_round := v_round + 1;
    -- A plain read: it plans the batch and decides nothing. The UPDATE below decides.
    IF p_segment IS NULL THEN
      SELECT p.per_user_limit, p.lock_fence, p.stock INTO v_limit, v_fence, v_stock FROM products p WHERE p.id = p_product_id;
    ELSE
      SELECT p.per_user_limit, s.lock_fence, s.stock INTO v_limit, v_fence, v_stock
        FROM product_segments s JOIN products p ON p.id = s.product_id
       WHERE s.product_id = p_product_id AND s.segment = p_segment;
    END IF;
    IF NOT FOUND OR (p_fence IS NOT NULL AND v_fence > p_fence) THEN
      RETURN QUERY SELECT g::int, CASE WHEN v_limit IS NULL THEN 'NOT_FOUND' ELSE 'STALE_FENCE' END,
                          NULL::bigint, NULL::timestamptz, NULL::timestamptz, v_stock
                     FROM generate_subscripts(p_users, 1) AS g;
      RETURN;
    END IF;
    IF v_stock > 0 THEN
      -- One lookup by key per buyer (a join's plan, cached while the table was small, could scan it).
      SELECT array_agg(r.user_id ORDER BY r.user_id), array_agg(r.quantity ORDER BY r.user_id) INTO v_users, v_read
        FROM (SELECT u.user_id,
                     coalesce((SELECT q.quantity FROM user_product_quota q WHERE q.user_id = u.user_id AND q.product_id = p_product_id), 0) AS quantity
                FROM (SELECT DISTINCT unnest(p_users) AS user_id) u) r;
    END IF;
    -- Each purchase in arrival order, in memory: a replayed key, then the stock, then the limit.
    v_left := v_stock; v_used := v_read; v_taken := '{}'; v_outcomes := '{}'; v_lefts := '{}'; v_created := '{}';
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
          v_created := v_created || i;
        END IF;
      END IF;
      v_lefts[i] := v_left;
    END LOOP;
    v_units := v_stock - v_left;
    -- Nothing taken and no newer fence to record: every purchase was refused on what was read.
    IF v_units = 0 AND (p_fence IS NULL OR p_fence <= v_fence) THEN
      v_after := v_left;
      EXIT;
    END IF;
    -- The final safeguard, one statement whatever the batch's size. Under READ COMMITTED a
    -- concurrent writer's commit makes Postgres evaluate this WHERE again on the row's newest
    -- version, so no row matches when the row no longer has the units (another writer took them),
    -- carries a newer fence (our lease was lost), or grew (refusals planned on less would be
    -- false). Then the batch is planned again on what is there now.
    IF p_segment IS NULL THEN
      UPDATE products SET stock = stock - v_units, lock_fence = GREATEST(lock_fence, coalesce(p_fence, lock_fence)), updated_at = now()
       WHERE id = p_product_id AND stock >= v_units AND stock <= v_stock AND (p_fence IS NULL OR lock_fence <= p_fence)
      RETURNING stock INTO v_after;
    ELSE
      UPDATE product_segments SET stock = stock - v_units, lock_fence = GREATEST(lock_fence, coalesce(p_fence, lock_fence))
       WHERE product_id = p_product_id AND segment = p_segment AND stock >= v_units AND stock <= v_stock AND (p_fence IS NULL OR lock_fence <= p_fence)
      RETURNING stock INTO v_after;
    END IF;
    EXIT WHEN FOUND;
    IF v_round >= 5 THEN
      RAISE EXCEPTION 'the stock row kept changing under this batch' USING ERRCODE = 'serialization_failure';
    END IF;
  END LOOP;
  -- From here on the stock row is ours until commit: the rows below are taken in the one lock
  -- order (stock row, then quota rows in user-id order), only for buyers whose quantity grows.
  IF cardinality(v_created) > 0 THEN
    -- The limit, enforced by Postgres; a quota that moved since it was read (another segment's
    -- batch, a cancel) makes the plan untrue: nothing of this batch stays, and the caller runs it again.
    WITH d AS (
      SELECT u.user_id, u.was, u.becomes FROM unnest(v_users, v_read, v_used) AS u(user_id, was, becomes) WHERE u.becomes <> u.was),
    w AS (
      INSERT INTO user_product_quota AS q (user_id, product_id, quantity)
      SELECT d.user_id, p_product_id, d.becomes - d.was FROM d ORDER BY d.user_id
      ON CONFLICT (user_id, product_id) DO UPDATE SET quantity = q.quantity + EXCLUDED.quantity
       WHERE q.quantity + EXCLUDED.quantity <= v_limit
      RETURNING q.user_id, q.quantity)
    SELECT (SELECT count(*) FROM d), (SELECT count(*) FROM w JOIN d ON d.user_id = w.user_id AND d.becomes = w.quantity)
      INTO v_wanted, v_agreed;
    IF v_agreed < v_wanted THEN
      RAISE EXCEPTION 'a quota of this batch changed meanwhile' USING ERRCODE = 'serialization_failure';
    END IF;
    FOREACH k IN ARRAY v_created LOOP
      v_ids[k] := nextval('orders_id_seq');
    END LOOP;
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
  END IF;
  -- Another writer may have taken units between the read and the UPDATE (never so many that
  -- ours were not there): each purchase reports what the row holds.
  RETURN QUERY SELECT g::int, v_outcomes[g], v_ids[g], CASE WHEN v_ids[g] IS NULL THEN NULL ELSE v_now END,
                      CASE WHEN v_ids[g] IS NULL THEN NULL ELSE v_expires END, v_lefts[g] + (v_after - v_left)
                 FROM generate_subscripts(p_users, 1) AS g;
END
$fn$`;

export class ConditionalStockUpdate1763700800000 implements MigrationInterface {
  name = 'ConditionalStockUpdate1763700800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(CREATE_FUNCTION);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(WITH_LOCKED_READ);
  }
}
