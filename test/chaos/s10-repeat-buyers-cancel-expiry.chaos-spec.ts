import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, eventually, httpSender, withPg } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { deadlocks, overdueOrders, pendingOrders, runRepeatBuyers, sampleLockWaits, watchExits } from './support/background';
import { apiAgrees, check, contractAnswers, saleInvariants, Verdict } from './support/checks';
import { baseEnv, startApis, stopAll } from './support/cluster';
import { saveResult } from './support/results';
import { succeeded } from './support/history';
import { Recorder, users } from './support/traffic';

jest.setTimeout(180_000);

const PAYMENT_TTL_S = 1;
const EXPIRY_INTERVAL_MS = 300;

/**
 * The same users buying several times and cancelling while the expiry job returns units, on a
 * segmented product (several batches at once, each holding its own segment row) and on a plain
 * product in DB-only mode (no lock at all: every batch, cancel and expiry meets in Postgres).
 * With quota rows taken in arrival order, these transactions deadlocked and whole batches
 * answered 500; with one lock order they never do.
 */
describe.each([
  { mode: 'segmented product, Redis up', segments: 4, redisDown: false },
  { mode: 'plain product, DB-only (Redis down)', segments: 1, redisDown: true },
])('chaos 10: repeat buyers cancelling while orders expire ($mode)', ({ mode, segments, redisDown }) => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let apis: ApiProcess[] = [];

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    apis = await startApis(`s10-${segments}`, 2, {
      ...baseEnv(db.url, redis.url),
      LOCK_FALLBACK: 'db',
      REDIS_COMMAND_TIMEOUT_MS: '500',
      ORDER_PAYMENT_TTL_S: String(PAYMENT_TTL_S),
      ORDER_EXPIRY_INTERVAL_MS: String(EXPIRY_INTERVAL_MS),
    });
  });

  afterAll(async () => {
    await stopAll(apis);
    await redis?.stop();
    await db?.drop();
  });

  it('answers only the contract, deadlocks nothing into a 500, and keeps every invariant', async () => {
    const urls = apis.map((a) => a.url);
    const admin = new Api(httpSender(urls[0]));
    const rec = new Recorder();
    const faults: string[] = [];
    const exits = watchExits(apis);
    const product = await admin.createProduct({ stock: 400, perUserLimit: 12, segments } as never);
    rec.track(product.id, { stock: 400, perUserLimit: 12 });
    if (redisDown) {
      await redis.kill();
      faults.push('redis killed before the sale: every purchase, cancel and expiry runs in DB-only mode');
    }
    const deadlocksBefore = await deadlocks(db.url);
    rec.setPhase('repeat buyers, cancels, expiry');
    // 40 users over 400 units, each buying from four clients at once (walking the users in four
    // different orders), 3 purchases per client: batches on different segments (or, with no
    // lock, any two batches) share users in opposite orders, while cancels and the expiry job
    // lower the same quota rows.
    const buyers = users(`s10-${segments}`, 40);
    const crowd = (list: string[], tag: string) =>
      runRepeatBuyers({ urls, productId: product.id, rec, users: list, buysPerUser: 3, cancelEvery: 3, concurrency: 40, keyPrefix: tag });
    const rotated = [...buyers.slice(20), ...buyers.slice(0, 20)];
    const orders = { fwd: buyers, rev: [...buyers].reverse(), mid: rotated, midrev: [...rotated].reverse() };
    const sale = Promise.all(Object.entries(orders).map(([tag, list]) => crowd(list, tag)));
    const waits = await sampleLockWaits(db.url, sale, 5);
    await sale;
    // The database's own record of the race the scenario sets up: one user's orders on different
    // segments made by transactions that ran at the same time (created within 20 ms).
    const crossed = await withPg(db.url, async (pg) =>
      Number(
        (
          await pg.query(
            `SELECT count(*) AS n FROM orders a JOIN orders b ON a.user_id = b.user_id AND a.id < b.id AND a.segment IS DISTINCT FROM b.segment
              WHERE a.product_id = $1 AND b.product_id = $1 AND abs(extract(epoch FROM a.created_at - b.created_at)) < 0.02`,
            [product.id],
          )
        ).rows[0].n,
      ),
    );
    faults.push(`orders unpaid expire after ${PAYMENT_TTL_S} s, the job runs every ${EXPIRY_INTERVAL_MS} ms on both instances during the sale`);
    const settled = await eventually(async () => (await overdueOrders(db.url, 0)) === 0 && (await pendingOrders(db.url)) === 0, 15_000, 250, 'every order expired').catch(() => false);
    const deadlocksSeen = (await deadlocks(db.url)) - deadlocksBefore;
    const expired = await withPg(db.url, async (pg) => Number((await pg.query(`SELECT count(*) AS n FROM orders WHERE status = 'EXPIRED'`)).rows[0].n));
    exits.stop();

    const verdicts: Verdict[] = [
      check('no instance exited', exits.exits().length === 0, exits.exits().join(', ') || 'both instances up throughout'),
      check(
        'contention happened: lock waits in pg_locks, or one user on two segments at once',
        waits.waiting > 0 || deadlocksSeen > 0 || crossed > 0,
        `${waits.waiting} of ${waits.samples} pg_locks samples had waiters (at most ${waits.most} at once); ${deadlocksSeen} deadlock(s) broken; ${crossed} pair(s) of one user's orders on different segments within 20 ms`,
      ),
      check('no answer was a 500 (deadlocks retried, then 503 LOCK_TIMEOUT)', rec.count('500') === 0, `outcomes: ${JSON.stringify(rec.outcomes)}; deadlocks Postgres broke: ${deadlocksSeen}`),
      check('every unpaid order expired and gave its units back', settled === true, `pending left: ${await pendingOrders(db.url)}`),
      // The traffic happened: orders were sold, some cancelled by their buyers and some expired.
      check('sales, cancels and expiries all happened', rec.count('201') > 0 && succeeded(rec.history, 'cancel') > 0 && expired > 0, `${rec.count('201')} 201s, ${succeeded(rec.history, 'cancel')} cancels answered 200, ${expired} expired`),
      ...(await saleInvariants(`s10-repeat-buyers-${segments > 1 ? 'segmented' : 'db-only'}`, db.url, rec)),
      ...(redisDown ? [] : [await apiAgrees(urls[1], db.url, product.id)]),
      contractAnswers(rec.violations),
    ];
    saveResult({
      id: `s10-repeat-buyers-${segments > 1 ? 'segmented' : 'db-only'}`,
      title: `Repeat buyers cancelling while orders expire (${mode})`,
      setup: `2 API instances, LOCK_FALLBACK=db, ${segments} segment(s), 400 units, perUserLimit 12, 40 users x 4 clients x 3 purchases, every 3rd order cancelled, ORDER_PAYMENT_TTL_S=${PAYMENT_TTL_S}, expiry every ${EXPIRY_INTERVAL_MS} ms`,
      rec,
      faults,
      recovery: { 'deadlocks broken by Postgres': deadlocksSeen },
      verdicts,
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
