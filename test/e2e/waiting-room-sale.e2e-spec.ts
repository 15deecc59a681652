import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { ApiProcess } from '../../scripts/infra/api-process';
import { checkHistory, formatCheck } from '../../scripts/history/check-history';
import { readFinalOrders } from '../../scripts/history/final-state';
import { withPg } from '../support/api-client';
import { seededOrder } from '../support/queue-order';
import { runQueueSale, QueueSaleRun } from '../support/queue-sale';
import { InstanceClient } from '../support/queue-sale-http';
import { RedisServerProcess } from '../support/redis-server';
import { startApis } from '../support/scale-sale';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { token } from '../support/tokens';

/**
 * The big sale through a waiting room: STOCK units, BUYERS queued buyers (QUEUE_SALE_BUYERS;
 * 5,000 by default so that CI stays quick, 50,000 for the issue's figure), through 2 built
 * instances (`npm run build` first). Judged only from what the clients were told and from
 * Postgres, against the order the test recomputes from the published seed.
 */
const STOCK = 2_000;
const BUYERS = Number(process.env.QUEUE_SALE_BUYERS ?? 5_000);
const ADMIT_PER_SECOND = 200;
/**
 * The fleet's poll budget for the queue (QUEUE_SALE_POLLS_PER_S; the app's default): pollers poll
 * at most 750 ms apart while the queue is at most 0.6 × it.
 */
const POLLS_PER_S = Number(process.env.QUEUE_SALE_POLLS_PER_S ?? 10_000);
/**
 * Every join must land in the pre-queue: joins took about 1.4 ms each here (700 a second through
 * the 2 instances, the machine shared), so the start is set that far ahead and a margin;
 * QUEUE_SALE_JOIN_MS raises it on a slower machine.
 */
const JOIN_WINDOW_MS = 8_000 + BUYERS * Number(process.env.QUEUE_SALE_JOIN_MS ?? 2);
const SALE_TIMEOUT_MS = 90_000;

jest.setTimeout(JOIN_WINDOW_MS + SALE_TIMEOUT_MS + 120_000);

const quantile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;

describe(`a sale of ${STOCK} units to ${BUYERS} queued buyers through 2 instances`, () => {
  let db: TestDatabase;
  let redis: RedisServerProcess;
  let apis: ApiProcess[] = [];
  let clients: InstanceClient[] = [];
  let run: QueueSaleRun;
  /** Ticket indexes in the queue's order, as the contract defines it from the published seed. */
  let order: number[];

  beforeAll(async () => {
    [db, redis] = await Promise.all([createTestDatabase(), RedisServerProcess.start()]);
    apis = await startApis(2, {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      WAITING_ROOM_TICK_MS: '100',
      WAITING_ROOM_POLLS_PER_S: String(POLLS_PER_S),
    });
    clients = apis.map((api) => new InstanceClient(api.url));
    run = await runQueueSale({
      clients,
      buyers: BUYERS,
      stock: STOCK,
      admitPerSecond: ADMIT_PER_SECOND,
      joinWindowMs: JOIN_WINDOW_MS,
      saleTimeoutMs: SALE_TIMEOUT_MS,
    });
    // The seeded order, recomputed by the independent script (scripts/queue-order) from the published seed.
    const indexOf = new Map(run.buyers.map((b, i) => [b.ticketId, i]));
    order = (
      await seededOrder(
        run.seed ?? '',
        run.seedCommitment ?? '',
        run.buyers.map((b) => b.ticketId),
      )
    ).map((id) => indexOf.get(id)!);
    mkdirSync('reports/waiting-room-sale', { recursive: true });
    writeFileSync('reports/waiting-room-sale/figures.json', JSON.stringify(figures(), null, 2));
    console.log(`waiting-room sale ${JSON.stringify(figures())}`);
  });
  afterAll(async () => {
    clients.forEach((client) => client.close());
    await Promise.all(apis.map((api) => api.stop()));
    await redis?.stop();
    await db?.drop();
  });

  /**
   * Per poller that did not buy: when it sent the poll that first answered SOLD_OUT (`asked`), or
   * received that answer (`seen`), after the last unit's 201. The bound judges `asked`: how soon
   * the API's poll cadence brings every poller back once the sale is over. `seen` adds a round trip
   * through this one client process, which 3,000 pollers on a shared 2-core machine stretch.
   */
  const soldOutDelays = (at: 'asked' | 'seen' = 'asked') =>
    run.buyers
      .filter((b) => b.finalState !== 'BOUGHT' && b.firstSoldOutSeenAt !== undefined)
      .map((b) => (at === 'asked' ? b.firstSoldOutAskedAt! : b.firstSoldOutSeenAt!) - run.lastUnitAt!)
      .sort((a, b) => a - b);
  /** Polls of tickets that did not buy, sent at least 1 s after the last unit's 201. */
  const latePolls = () =>
    run.polls.filter(
      (p) =>
        run.lastUnitAt !== undefined &&
        p.sentAt >= run.lastUnitAt + 1000 &&
        run.buyers[p.buyer].finalState !== 'BOUGHT',
    );
  /** Pairs (earlier in the queue, later in the queue) whose admissions came in the opposite order. */
  const inversions = () => {
    const admitted = order.map((i) => run.buyers[i].admissionExpiresAt).filter((at): at is number => at !== undefined);
    let count = 0;
    for (let a = 0; a < admitted.length; a++)
      for (let b = a + 1; b < admitted.length; b++) if (admitted[a] > admitted[b]) count++;
    return count;
  };
  function figures() {
    const delays = soldOutDelays();
    const seen = soldOutDelays('seen');
    const late = latePolls();
    return {
      buyers: BUYERS,
      stock: STOCK,
      joinS: (run.lastJoinAnsweredAt - (run.saleStartsAt - JOIN_WINDOW_MS)) / 1000,
      saleS: run.lastUnitAt ? (run.lastUnitAt - run.saleStartsAt) / 1000 : null,
      sold: run.sold,
      polls: run.polls.length,
      samples: run.samples.length,
      maxAdmittedOverStock: Math.max(...run.samples.map((s) => s.admitted - s.derivedStock)),
      inversions: inversions(),
      latePolls: late.length,
      latePollsSoldOut: late.filter((p) => p.state === 'SOLD_OUT').length,
      pollersSeeingSoldOut: delays.length,
      firstSoldOutAskedMs: {
        p50: quantile(delays, 0.5),
        p99: quantile(delays, 0.99),
        max: delays.at(-1),
        within1s: delays.filter((d) => d <= 1000).length,
      },
      firstSoldOutSeenMs: {
        p50: quantile(seen, 0.5),
        p99: quantile(seen, 0.99),
        max: seen.at(-1),
        within1s: seen.filter((d) => d <= 1000).length,
      },
      unexpected: run.unexpected.slice(0, 5),
    };
  }

  it('took every join in the pre-queue, and published the seed its commitment promised', () => {
    expect(run.buyers.filter(Boolean)).toHaveLength(BUYERS);
    expect(run.lastJoinAnsweredAt).toBeLessThan(run.saleStartsAt);
    expect(run.seed).toMatch(/^[0-9a-f]+$/);
    expect(createHash('sha256').update(Buffer.from(run.seed!, 'hex')).digest('hex')).toBe(run.seedCommitment);
  });

  it('sold every unit, to exactly the first buyers of the seeded order, with 0 admission inversions', async () => {
    expect(run.sold).toBe(STOCK);
    const bought = run.buyers.flatMap((b, i) => (b.finalState === 'BOUGHT' ? [i] : []));
    expect(bought.sort((a, b) => a - b)).toEqual(order.slice(0, STOCK).sort((a, b) => a - b));
    expect(inversions()).toBe(0);
    expect(run.unexpected).toEqual([]);
    const pg = await withPg(db.url, async (client) => ({
      stock: (await client.query('SELECT stock FROM products WHERE id = $1', [run.productId])).rows[0].stock,
      orders: (
        await client.query(
          `SELECT user_id FROM orders WHERE product_id = $1 AND status IN ('PENDING_PAYMENT', 'PAID')`,
          [run.productId],
        )
      ).rows.map((r) => r.user_id as string),
    }));
    expect(pg.stock).toBe(0);
    expect(pg.orders.sort()).toEqual(bought.map((i) => run.buyers[i].user).sort());
  });

  it('never had more outstanding admissions than stock left, sampled every 100 ms', () => {
    // A sample every 100 ms (or every round trip, when one takes longer) until every buyer is done:
    // at least half as many as the sale had ticks, even on a loaded machine.
    expect(run.samples.length).toBeGreaterThanOrEqual(Math.floor((run.lastUnitAt! - run.saleStartsAt) / 200));
    expect(run.samples.some((s) => s.admitted > 0)).toBe(true);
    expect(run.samples.filter((s) => s.admitted > s.derivedStock)).toEqual([]);
  });

  it('brings 99% of the pollers who did not buy back within 1 s of the last unit to be told SOLD_OUT while the queue fits the poll budget, and leaves none waiting', () => {
    const notBought = run.buyers.filter((b) => b.finalState !== 'BOUGHT');
    expect(notBought.length).toBe(BUYERS - STOCK);
    expect(notBought.filter((b) => b.finalState !== 'SOLD_OUT')).toEqual([]);
    const delays = soldOutDelays();
    expect(delays).toHaveLength(notBought.length);
    // A queue longer than the budget polls every waiting / budget seconds on average (±25%), so
    // the bound grows with it: 1 s up to 6,000 waiting at the default budget, 6.25 s at 48,000.
    const boundMs = Math.max(1000, (1.25 * (BUYERS - STOCK) * 1000) / POLLS_PER_S + 250);
    expect(quantile(delays, 0.99)).toBeLessThanOrEqual(boundMs);
    // And a poll sent once the sell-out had a second to spread is never answered anything else.
    expect(latePolls().filter((p) => p.state !== 'SOLD_OUT')).toEqual([]);
  });

  it("passes the history checker: every purchase answer true against Postgres's final orders", async () => {
    const finalOrders = await readFinalOrders([run.productId], { databaseUrl: db.url });
    run.history.save('reports/waiting-room-sale/history.jsonl');
    const check = checkHistory(run.history.meta, run.history.ops, finalOrders);
    expect({ ok: check.ok, report: check.ok ? '' : formatCheck(check) }).toEqual({ ok: true, report: '' });
    expect(check.figures.created).toBe(STOCK);
  });

  it('answers a join after the last unit 409 SOLD_OUT, on either instance', async () => {
    for (const [i, client] of clients.entries()) {
      const late = await client.send('POST', `/products/${run.productId}/queue`, {
        authorization: `Bearer ${token(`late-joiner-${i}`)}`,
      });
      expect({ status: late.status, code: late.body.code }).toEqual({ status: 409, code: 'SOLD_OUT' });
    }
  });
});
