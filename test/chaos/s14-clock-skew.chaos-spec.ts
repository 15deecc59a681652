import { ApiProcess } from '../../scripts/infra/api-process';
import { readFinalOrders } from '../../scripts/history/final-state';
import { Api, eventually, httpSender, sleep, withPg } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { describeOnLinux } from '../support/linux-only';
import { auth } from '../support/tokens';
import { pendingOrders, watchExits } from './support/background';
import { check, contractAnswers, saleInvariants, Verdict } from './support/checks';
import { baseEnv, startApi, stopAll } from './support/cluster';
import { skewedClockEnv } from './support/faketime';
import { orderStatusOf, recorded, stockOf, succeeded } from './support/history';
import { saveResult } from './support/results';
import { buyOnce, Recorder, users } from './support/traffic';

jest.setTimeout(120_000);

const PAYMENT_TTL_S = 2;
const SKEW_S = 600;

/** Seconds the instance's Date header is ahead of ours (whole seconds: ±1). */
async function clockAheadS(url: string): Promise<number> {
  const res = await fetch(`${url}/health/live`);
  return Math.round((Date.parse(res.headers.get('date') ?? '') - Date.now()) / 1000);
}

/**
 * One instance's wall clock runs 10 minutes fast beside a normal one. Expiry and payment compare
 * expires_at with Postgres's now(), and lock leases are Redis TTLs, so the skewed clock must change
 * nothing a buyer sees: no order expires early, a paid order never expires, nothing is oversold.
 */
describeOnLinux('libfaketime through LD_PRELOAD')('chaos 14: an instance whose clock runs 10 minutes fast', () => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let apis: ApiProcess[] = [];

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    const env = { ...baseEnv(db.url, redis.url), ORDER_PAYMENT_TTL_S: String(PAYMENT_TTL_S), ORDER_EXPIRY_INTERVAL_MS: '300' };
    apis = [await startApi('s14', 0, env), await startApi('s14', 1, { ...env, ...skewedClockEnv(`+${SKEW_S / 60}m`) })];
  });

  afterAll(async () => {
    await stopAll(apis);
    await redis?.stop();
    await db?.drop();
  });

  it('expires nothing early, never expires a paid order, and oversells nothing', async () => {
    const urls = apis.map((a) => a.url);
    // Contract invariant 9: no instance exits (a dead instance's buyers would only see ECONNREFUSED).
    const exits = watchExits(apis);
    const ahead = await Promise.all(urls.map(clockAheadS));
    const product = await new Api(httpSender(urls[0])).createProduct({ stock: 300, perUserLimit: 1 });
    const rec = new Recorder();
    rec.track(product.id, { stock: 300, perUserLimit: 1 });
    const queue = users('s14', 400);
    let n = 0;
    // Buyers on both instances; half pay at once (through the other instance), half let the order expire.
    const worker = async () => {
      for (let user = queue.shift(); user !== undefined; user = queue.shift()) {
        const i = n++;
        const a = await buyOnce(user, `${user}-key`, { urls: [urls[i % 2]], productId: product.id, rec, maxAttempts: 10 });
        const send = httpSender(urls[(i + 1) % 2], 15_000);
        if (a.orderId && i % 2 === 0) await recorded(rec.history, send, { method: 'POST', url: `/orders/${a.orderId}/pay`, headers: auth(user) }, { op: 'pay', orderId: a.orderId, userId: user }, orderStatusOf);
        if (i % 5 === 0) await recorded(rec.history, send, { method: 'GET', url: `/products/${product.id}` }, { op: 'read', productId: product.id }, stockOf);
        await sleep(20);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const settled = await eventually(async () => (await pendingOrders(db.url)) === 0, (PAYMENT_TTL_S + 15) * 1000, 250, 'every unpaid order expired').catch(() => false);

    // From outside: a pay refused before the order's expiresAt (Postgres's clock, same host) means it expired early.
    const orders = new Map((await readFinalOrders([product.id], { databaseUrl: db.url })).map((o) => [o.id, o]));
    const refusedEarly = rec.history.ops.filter((op) => op.op === 'pay' && op.status === 409 && op.completeMs < (orders.get(op.orderId)?.expiresAtMs ?? 0) - 250);
    const closedEarly = await withPg(db.url, async (pg) => Number((await pg.query(`SELECT count(*) AS n FROM orders WHERE status = 'EXPIRED' AND closed_at < expires_at`)).rows[0].n));
    const expired = [...orders.values()].filter((o) => o.status === 'EXPIRED').length;
    exits.stop();
    const verdicts: Verdict[] = [
      check('no instance exited', exits.exits().length === 0, exits.exits().length ? `exited: ${exits.exits().join(', ')}` : 'every instance up throughout'),
      check('the skew was in effect: api1 Date ~10 min ahead, api0 on time', Math.abs(ahead[1] - SKEW_S) <= 30 && Math.abs(ahead[0]) <= 2, `Date headers ahead by ${ahead.join(' s, ')} s`),
      check('sales, pays and expiries all happened', rec.count('201') > 0 && succeeded(rec.history, 'pay') > 0 && expired > 0, `${rec.count('201')} 201s, ${succeeded(rec.history, 'pay')} pays answered 200, ${expired} expired`),
      check('every unpaid order expired', settled === true, `pending left: ${await pendingOrders(db.url)}`),
      check('no order expired early (pays refused before expiresAt; closed before expires_at)', refusedEarly.length === 0 && closedEarly === 0, `${refusedEarly.length} pay(s) refused early, ${closedEarly} order(s) closed before expires_at`),
      contractAnswers(rec.violations),
      ...(await saleInvariants('s14-clock-skew', db.url, rec)),
    ];
    saveResult({
      id: 's14-clock-skew',
      title: 'An instance whose clock runs 10 minutes fast',
      setup: `2 API instances, api1 under libfaketime FAKETIME=+${SKEW_S / 60}m; ORDER_PAYMENT_TTL_S=${PAYMENT_TTL_S}, expiry every 300 ms on both; 300 units (limit 1), 400 buyers over both instances, half paying through the other instance`,
      rec,
      faults: [`api1's wall clock ${ahead[1]} s ahead (Date header)`],
      recovery: { 'expired orders': expired, 'pays answered 200': succeeded(rec.history, 'pay') },
      verdicts,
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
