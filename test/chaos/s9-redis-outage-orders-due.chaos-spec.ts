import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, eventually, httpSender, sleep, withPg } from '../support/api-client';
import { auth } from '../support/tokens';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { installExpiryFault, overdueOrders, pendingOrders, runRepeatBuyers, watchExits } from './support/background';
import { apiAgrees, check, contractAnswers, saleInvariants, Verdict } from './support/checks';
import { baseEnv, msUntilHealthy, startApis, stopAll } from './support/cluster';
import { saveResult } from './support/results';
import { orderStatusOf, recorded } from './support/history';
import { AttemptResult, isAnswer, Recorder, users } from './support/traffic';

jest.setTimeout(180_000);

const PAYMENT_TTL_S = 2;
const EXPIRY_INTERVAL_MS = 500;
const OUTAGE_MS = 4000;

/**
 * Redis dies while unpaid orders fall due and the expiry job runs on both instances, and a
 * database error hits the expiry runs in the middle of the outage. Before the job handled its
 * own failures, both instances exited on an unhandled rejection within seconds (in `reject` mode
 * from the product lock's 503; in `db` mode from the injected error), and nothing expired after.
 */
describe.each(['reject', 'db'] as const)('chaos 9 (%s): Redis outage with orders due and a failing expiry run', (fallback) => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let apis: ApiProcess[] = [];

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    apis = await startApis(`s9-${fallback}`, 2, {
      ...baseEnv(db.url, redis.url),
      LOCK_FALLBACK: fallback,
      LOCK_TTL_MS: '1000',
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

  it('keeps every instance up, answers only the contract, and expires every due order once Redis is back', async () => {
    const urls = apis.map((a) => a.url);
    const admin = new Api(httpSender(urls[0]));
    const rec = new Recorder();
    const faults: string[] = [];
    const attempts: AttemptResult[] = [];
    const exits = watchExits(apis);
    const fault = await installExpiryFault(db.url);

    const product = await admin.createProduct({ stock: 200, perUserLimit: 3 });
    rec.track(product.id, { stock: 200, perUserLimit: 3 });
    // Twelve unpaid orders (and two paid) fall due PAYMENT_TTL_S after they are made.
    attempts.push(...(await runRepeatBuyers({ urls, productId: product.id, rec, users: users('s9-due', 7), buysPerUser: 2, cancelEvery: 0, concurrency: 7 })));
    const paid = attempts.slice(0, 2).map((a) => a.orderId!);
    for (const [i, id] of paid.entries()) {
      const res = await recorded(rec.history, httpSender(urls[0]), { method: 'POST', url: `/orders/${id}/pay`, headers: auth(attempts[i].user) }, { op: 'pay', orderId: id, userId: attempts[i].user }, orderStatusOf);
      expect(isAnswer(res) && res.status).toBe(200);
    }

    rec.setPhase('redis killed, orders falling due');
    await redis.kill();
    faults.push(`SIGKILL redis at t=${(rec.now() / 1000).toFixed(1)} s with ${attempts.length - paid.length} unpaid orders due within ${PAYMENT_TTL_S} s`);
    let stop = false;
    const crowd = runRepeatBuyers({ urls, productId: product.id, rec, users: users('s9-outage', 40), buysPerUser: 3, cancelEvery: 4, concurrency: 4, maxAttempts: 3, retryCapMs: 300, stop: () => stop });
    await sleep(OUTAGE_MS / 2);
    rec.setPhase('redis down, expiry runs failing in Postgres');
    const firedBefore = await fault.fired();
    await fault.set(true);
    faults.push(`expiry UPDATE made to fail in Postgres (trigger) for ${OUTAGE_MS / 2} ms, during the outage`);
    await sleep(OUTAGE_MS / 2);
    const exitsDuringOutage = exits.exits();
    rec.setPhase('redis restarted empty');
    await redis.restart();
    faults.push(`redis restarted empty after ${OUTAGE_MS} ms`);
    // Postgres counts each time the trigger failed an expiry run: proof that the fault fired, from
    // the database, not from the app's own counters. With LOCK_FALLBACK=reject no expiry runs while
    // Redis is down, so the switch stays on until one has failed after the restart (at most 10 s).
    await eventually(async () => (await fault.fired()) > firedBefore, 10_000, 100, 'an injected expiry failure').catch(() => undefined);
    await fault.set(false);
    const expiryFailures = (await fault.fired()) - firedBefore;
    const healthyAfterMs = await msUntilHealthy(urls);
    stop = true;
    attempts.push(...(await crowd));
    rec.setPhase('after recovery');
    attempts.push(...(await runRepeatBuyers({ urls, productId: product.id, rec, users: users('s9-after', 10), buysPerUser: 1, cancelEvery: 0, concurrency: 5 })));
    // Every order made so far falls due within PAYMENT_TTL_S; the job must catch up on all of them.
    const caughtUpMs = await eventually(async () => (await overdueOrders(db.url, 0)) === 0 && (await pendingOrders(db.url)) === 0, 20_000, 250, 'every due order expired')
      .then(() => rec.now())
      .catch(() => undefined);
    exits.stop();

    const outagePhase = rec.phases['redis killed, orders falling due'];
    const verdicts: Verdict[] = [
      check('no instance exited', exits.exits().length === 0, exits.exits().length ? `exited: ${exits.exits().join(', ')} (${exitsDuringOutage.length} during the outage)` : 'both instances up throughout'),
      check('every due order expired after recovery', caughtUpMs !== undefined, `pending orders left: ${await pendingOrders(db.url)}; overdue: ${await overdueOrders(db.url, 0)}`),
      check('the injected expiry failure fired (counted by Postgres)', expiryFailures > 0, `${expiryFailures} expiry run(s) failed by the trigger while it was on`),
      check('the paid orders stayed paid', (await statuses(db.url, paid)).every((s) => s === 'PAID'), (await statuses(db.url, paid)).join(', ')),
      fallback === 'reject'
        ? check('purchases during the outage refused 503 with Retry-After (LOCK_FALLBACK=reject)', (outagePhase?.outcomes['201'] ?? 0) === 0 && (outagePhase?.outcomes['503 DEPENDENCY_UNAVAILABLE'] ?? 0) > 0, JSON.stringify(outagePhase?.outcomes))
        : check('sales went on during the outage (LOCK_FALLBACK=db)', (outagePhase?.outcomes['201'] ?? 0) > 0, JSON.stringify(outagePhase?.outcomes)),
      check('sales resumed after Redis came back', rec.phases['after recovery']?.outcomes['201'] === 10, JSON.stringify(rec.phases['after recovery']?.outcomes)),
      ...(await saleInvariants('s9-redis-outage-orders-due', db.url, rec)),
      await apiAgrees(urls[1], db.url, product.id),
      contractAnswers(rec.violations),
    ];
    saveResult({
      id: `s9-redis-outage-orders-due-${fallback}`,
      title: `Redis outage with orders due and a failing expiry run (LOCK_FALLBACK=${fallback})`,
      setup: `2 API instances, 1 redis-server, LOCK_FALLBACK=${fallback}, ORDER_PAYMENT_TTL_S=${PAYMENT_TTL_S}, ORDER_EXPIRY_INTERVAL_MS=${EXPIRY_INTERVAL_MS}; repeat buyers (3 each) cancelling every 4th order`,
      rec,
      faults,
      recovery: { 'all /health 200 after restart (ms)': healthyAfterMs, 'every due order expired at t (ms)': caughtUpMs },
      verdicts,
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});

async function statuses(databaseUrl: string, ids: string[]): Promise<string[]> {
  return withPg(databaseUrl, async (pg) => (await pg.query('SELECT status FROM orders WHERE id = ANY($1::bigint[]) ORDER BY id', [ids])).rows.map((r) => String(r.status)));
}
