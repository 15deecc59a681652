/**
 * The fence paths and the pay/expiry race, driven deterministically: purchase_batch called with a
 * stale fence, a fence counter that restarted below a row's fence and its repair, an idempotency
 * key committed by another transaction in the middle of a batch, and payments racing the expiry
 * job on orders that fall due.
 */
import Redis from 'ioredis';
import { Client } from 'pg';
import { OrderExpiryService } from '../../apps/api/src/orders/order-expiry.service';
import { AppHarness, startApp } from '../support/app-harness';
import { Api, eventually, expectInvariants, injectSender, Order, sleep, withPg } from '../support/api-client';
import { auth } from '../support/tokens';

jest.setTimeout(90_000);

// The fence counter every lock key of the app shares (LockingModule prefix `fs:lock:` + `#fence`).
const FENCE_COUNTER = 'fs:lock:#fence';

describe('fencing tokens in Postgres', () => {
  let harness: AppHarness;
  let api: Api;
  let redis: Redis;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '100000' });
    api = new Api(injectSender(harness.app));
    redis = harness.redis.client();
  });
  afterAll(async () => {
    redis?.disconnect();
    await harness?.close();
  });

  it('purchase_batch with a fence older than the row\'s changes nothing and answers STALE_FENCE for every purchase', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 2 });
    const db = harness.env.DATABASE_URL;
    await withPg(db, (pg) => pg.query('UPDATE products SET lock_fence = 1000 WHERE id = $1', [product.id]));
    const rows = await withPg(db, async (pg) =>
      (await pg.query(`SELECT idx, outcome, order_id FROM purchase_batch($1, NULL, 999, ARRAY['fa','fb']::varchar[], ARRAY[1,1], ARRAY[NULL,NULL]::varchar[], ARRAY[NULL,NULL]::varchar[], 60, ARRAY['p-fa','p-fb']::varchar[], gen_random_uuid()) ORDER BY idx`, [product.id])).rows,
    );
    expect(rows).toEqual([
      { idx: 1, outcome: 'STALE_FENCE', order_id: null },
      { idx: 2, outcome: 'STALE_FENCE', order_id: null },
    ]);
    const after = await expectInvariants(db, product.id);
    expect(after.stock).toBe(5);
    expect(after.live).toBe(0);
    // The same fence as the row's, or a newer one, is accepted and raises the row's fence.
    const accepted = await withPg(db, async (pg) =>
      (await pg.query(`SELECT outcome FROM purchase_batch($1, NULL, 1001, ARRAY['fa']::varchar[], ARRAY[1], ARRAY[NULL]::varchar[], ARRAY[NULL]::varchar[], 60, ARRAY['p-fa']::varchar[], gen_random_uuid())`, [product.id])).rows,
    );
    expect(accepted).toEqual([{ outcome: 'CREATED' }]);
    const fence = await withPg(db, async (pg) => (await pg.query('SELECT lock_fence FROM products WHERE id = $1', [product.id])).rows[0].lock_fence);
    expect(Number(fence)).toBe(1001);
  });

  it('a fence counter that restarted below a row\'s fence is lifted past it by the next holder, and sales resume', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 1 });
    const db = harness.env.DATABASE_URL;
    const counter = Number((await redis.get(FENCE_COUNTER)) ?? 0);
    const rowFence = counter + 1_000_000;
    // As if Redis lost the counter and its clock was set back: every new fence is below the row's.
    await withPg(db, (pg) => pg.query('UPDATE products SET lock_fence = $2 WHERE id = $1', [product.id, rowFence]));
    const refused = await api.purchase(product.id, 'fence-u1');
    expect(refused.status).toBe(503);
    expect((refused.body as unknown as { code: string }).code).toBe('LOCK_TIMEOUT');
    expect(refused.headers['retry-after']).toBeDefined();
    expect(Number(await redis.get(FENCE_COUNTER))).toBeGreaterThanOrEqual(rowFence);
    // Retried as Retry-After says (an earlier retry is refused 429 and wins nothing: docs/API.md).
    await sleep(Number(refused.headers['retry-after']) * 1000);
    const sold = await api.purchase(product.id, 'fence-u1');
    expect(sold.status).toBe(201);
    const after = await expectInvariants(db, product.id);
    expect(after.live).toBe(1);
    expect(after.stock).toBe(4);
  });
});

describe('an idempotency key committed by another transaction during a batch', () => {
  let harness: AppHarness;
  let api: Api;

  beforeAll(async () => {
    harness = await startApp();
    api = new Api(injectSender(harness.app));
  });
  afterAll(() => harness?.close());

  // Keys are unique per user across products, and another product's batch shares no row lock
  // with this one: the key lookup cannot see the other order until it commits.
  it('leaves nothing of the batch and fails 40001; run again, the key answers DUPLICATE_KEY and the rest sells', async () => {
    const db = harness.env.DATABASE_URL;
    const [first, second] = [await api.createProduct({ stock: 5 }), await api.createProduct({ stock: 5 })];
    const batch = (productId: string, users: string[], keys: (string | null)[]) => ({
      text: 'SELECT idx, outcome FROM purchase_batch($1, NULL, NULL, $2::varchar[], $3::int[], $4::varchar[], $4::varchar[], 60, $5::varchar[], gen_random_uuid()) ORDER BY idx',
      values: [productId, users, users.map(() => 1), keys, keys.map((key, i) => (key === null ? `p-${productId}-${users[i]}` : null))],
    });
    const holder = new Client({ connectionString: db });
    const racer = new Client({ connectionString: db });
    await Promise.all([holder.connect(), racer.connect()]);
    try {
      const pidOf = async (client: Client): Promise<number> => (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const [holderPid, racerPid] = [await pidOf(holder), await pidOf(racer)];
      await holder.query('BEGIN');
      await holder.query(batch(first.id, ['race-a'], ['race-key']));
      const racing = racer.query(batch(second.id, ['race-a', 'race-b'], ['race-key', null])).then(
        () => 'answered',
        (error: { code?: string }) => error.code,
      );
      // The racer's insert waits on the holder's uncommitted order with the same key: commit only
      // once Postgres shows its backend blocked by the holder's, or the race would not be run.
      // (Asked on a connection of its own: inside the holder's transaction the view is a snapshot.)
      await eventually(
        () =>
          withPg(db, async (pg) =>
            (await pg.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock' AND pg_blocking_pids(pid) @> ARRAY[$2::int]", [racerPid, holderPid])).rowCount,
          ),
        20_000,
        20,
        "the racer's batch to wait on the holder's key",
      );
      await holder.query('COMMIT');
      expect(await racing).toBe('40001');
      const untouched = await expectInvariants(db, second.id);
      expect([untouched.stock, untouched.live]).toEqual([5, 0]);

      const again = await racer.query(batch(second.id, ['race-a', 'race-b'], ['race-key', null]));
      expect(again.rows).toEqual([
        { idx: 1, outcome: 'DUPLICATE_KEY' },
        { idx: 2, outcome: 'CREATED' },
      ]);
      const after = await expectInvariants(db, second.id);
      expect([after.stock, after.live]).toEqual([4, 1]);
    } finally {
      await Promise.all([holder.end(), racer.end()]);
    }
  });
});

describe('pay racing the expiry job', () => {
  let harness: AppHarness;
  let api: Api;

  beforeAll(async () => {
    // Orders fall due a second after they are made; the job is run by hand below, not by its timer.
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '100000', ORDER_PAYMENT_TTL_S: '1', ORDER_EXPIRY_INTERVAL_MS: '3600000' });
    api = new Api(injectSender(harness.app));
  });
  afterAll(async () => {
    await harness?.close();
  });

  /**
   * One round: 60 orders falling due, each paid while the expiry job runs again and again. Checks
   * every answer against the order's final state; returns how many ended PAID and EXPIRED.
   */
  const raceRound = async (round: number): Promise<{ paid: number; expired: number }> => {
    const product = await api.createProduct({ stock: 60, perUserLimit: 1 });
    const users = Array.from({ length: 60 }, (_, i) => `race-r${round}-u${i}`);
    const orders: Order[] = [];
    for (const user of users) {
      const res = await api.purchase(product.id, user);
      expect(res.status).toBe(201);
      orders.push(res.body);
    }
    const expiry = harness.app.get(OrderExpiryService);
    // Each order is paid close to its own deadline, half just before it and half just after, while
    // the job runs again and again: on a fast machine or a loaded one, both sides get to win.
    const payAt = (order: Order, i: number) => Date.parse(order.expiresAt) + (i % 2 === 0 ? -120 : 150);
    let racing = true;
    const job = (async () => {
      let runs = 0;
      while (racing || runs < 1) {
        await expiry.expireDue();
        runs++;
      }
      return runs;
    })();
    const answers = await Promise.all(orders.map(async (order, i) => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, payAt(order, i) - Date.now())));
      return api.pay(order.id, auth(users[i]));
    }));
    racing = false;
    expect(await job).toBeGreaterThan(0);
    await expiry.expireDue();

    const statuses = await withPg(harness.env.DATABASE_URL, async (pg) => {
      const rows = (await pg.query('SELECT id::text AS id, status FROM orders WHERE id = ANY($1::bigint[])', [orders.map((o) => o.id)])).rows;
      return new Map(rows.map((r) => [r.id as string, r.status as string]));
    });
    // Each answer is one of the two outcomes, and the order's final state is the one it told.
    const told = answers.map((answer, i) => ({
      answer: answer.status === 200 ? `200 ${answer.body.status}` : `${answer.status} ${(answer.body as unknown as { code: string }).code}`,
      final: statuses.get(orders[i].id),
    }));
    const mismatched = told.filter((t) => !(t.answer === '200 PAID' && t.final === 'PAID') && !(t.answer === '409 INVALID_ORDER_STATE' && t.final === 'EXPIRED'));
    expect(mismatched).toEqual([]);
    // Every order ended one way or the other, and the expired ones gave their units back.
    const paid = [...statuses.values()].filter((s) => s === 'PAID').length;
    const expired = [...statuses.values()].filter((s) => s === 'EXPIRED').length;
    expect(paid + expired).toBe(60);
    const report = await expectInvariants(harness.env.DATABASE_URL, product.id);
    expect(report.stock).toBe(60 - paid);
    return { paid, expired };
  };

  it('never leaves an order answered 200 PAID in EXPIRED, nor pays one the job expired', async () => {
    // The race proves something only if both outcomes happened: rounds go on (at most 5) until
    // some pay won and some expiry won.
    const totals = { paid: 0, expired: 0, rounds: 0 };
    while (totals.rounds < 5 && (totals.paid === 0 || totals.expired === 0)) {
      const { paid, expired } = await raceRound(totals.rounds);
      totals.paid += paid;
      totals.expired += expired;
      totals.rounds++;
    }
    expect(totals.paid).toBeGreaterThan(0);
    expect(totals.expired).toBeGreaterThan(0);
  });
});
