import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, ApiResponse, eventually, httpSender, sleep, withPg } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { describeOnLinux } from '../support/linux-only';
import { adminAuth, auth } from '../support/tokens';
import { apiAgrees, check, contractAnswers, saleInvariants, Verdict } from './support/checks';
import { baseEnv, rssMb, startApis, stopAll } from './support/cluster';
import { saveResult } from './support/results';
import { orderStatusOf, recorded, stockOf } from './support/history';
import { AttemptResult, buyOnce, isAnswer, Recorder } from './support/traffic';

/** 300 s under `npm run test:chaos` (the 5 minutes), 60 s by default so that `npm test` stays short. */
const SOAK_S = Number(process.env.CHAOS_SOAK_S ?? 60);
const PAYMENT_TTL_S = 3;

jest.setTimeout(SOAK_S * 1000 + 180_000);

describeOnLinux("each instance's memory from /proc")(`chaos 8: soak, ${SOAK_S} s of mixed traffic over 3 instances with one restart`, () => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let apis: ApiProcess[] = [];

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    apis = await startApis('s8', 3, { ...baseEnv(db.url, redis.url), ORDER_PAYMENT_TTL_S: String(PAYMENT_TTL_S), ORDER_EXPIRY_INTERVAL_MS: '1000' });
  });

  afterAll(async () => {
    await stopAll(apis);
    await redis?.stop();
    await db?.drop();
  });

  it('keeps every invariant and a flat RSS through purchases, pays, cancels, expiries, restocks and a restart', async () => {
    const urls = apis.map((a) => a.url);
    const admin = new Api(httpSender(urls[0]));
    const products = await Promise.all([0, 1, 2].map(() => admin.createProduct({ stock: 200, perUserLimit: 2 })));
    const rec = new Recorder();
    products.forEach((p) => rec.track(p.id, { stock: 200, perUserLimit: 2 }));
    rec.setPhase('soak');
    const deadline = Date.now() + SOAK_S * 1000;
    const attempts: AttemptResult[] = [];
    // Answered 200, so the checker has pays, cancels and restocks that took effect to judge.
    const counts = { pays: 0, cancels: 0, restocks: 0, reads: 0 };
    let rr = 0;
    const send = async (request: Parameters<ReturnType<typeof httpSender>>[0], fields: Parameters<typeof recorded>[3], fill?: (res: ApiResponse) => object): Promise<boolean> => {
      const t0 = performance.now();
      const res = await recorded(rec.history, httpSender(urls[rr++ % urls.length], 15_000), request, fields, fill);
      rec.record(res, performance.now() - t0);
      return isAnswer(res) && res.status === 200;
    };

    const buyer = async (w: number) => {
      for (let i = 0; Date.now() < deadline; i++) {
        const product = products[Math.floor(Math.random() * products.length)];
        const user = `s8-u${Math.floor(Math.random() * 400)}`;
        const a = await buyOnce(user, `s8-w${w}-${i}`, { urls, productId: product.id, rec, maxAttempts: 10 });
        attempts.push(a);
        const roll = Math.random();
        if (a.orderId && roll < 0.4) {
          const fields = { op: 'pay' as const, orderId: a.orderId, userId: user };
          if (await send({ method: 'POST', url: `/orders/${a.orderId}/pay`, headers: auth(user) }, fields, orderStatusOf)) counts.pays++;
        } else if (a.orderId && roll < 0.7) {
          const fields = { op: 'cancel' as const, orderId: a.orderId, actor: 'user' as const, userId: user };
          if (await send({ method: 'POST', url: `/orders/${a.orderId}/cancel`, headers: auth(user) }, fields, orderStatusOf)) counts.cancels++;
        } else if (roll < 0.85) {
          const fields = { op: 'read' as const, productId: product.id };
          if (await send({ method: 'GET', url: `/products/${product.id}` }, fields, stockOf)) counts.reads++;
        }
        await sleep(40);
      }
    };
    const restocker = async () => {
      while (Date.now() + 5000 < deadline) {
        await sleep(5000);
        const product = products[Math.floor(Math.random() * products.length)];
        const stock = 50 + Math.floor(Math.random() * 150);
        const fields = { op: 'setStock' as const, productId: product.id, stock };
        if (await send({ method: 'PUT', url: `/admin/products/${product.id}/stock`, headers: adminAuth(), payload: { stock } }, fields)) counts.restocks++;
      }
    };
    const rss: Record<string, { start?: number; end?: number }> = {};
    const warmS = Math.min(10, SOAK_S / 4);
    const operator = async () => {
      await sleep(warmS * 1000);
      apis.forEach((a, i) => (rss[`api${i}`] = { start: rssMb(a.pid) }));
      await sleep(Math.max(0, SOAK_S / 2 - warmS) * 1000);
      const t0 = Date.now();
      await apis[1].stop('SIGTERM');
      await apis[1].start(60_000);
      restartMs = Date.now() - t0;
      await sleep(warmS * 1000);
      rss['api1 (after restart)'] = { start: rssMb(apis[1].pid) };
    };
    let restartMs: number | undefined;
    await Promise.all([...[0, 1, 2, 3].map(buyer), restocker(), operator()]);
    for (const [name, r] of Object.entries(rss)) {
      const index = Number(/api(\d)/.exec(name)![1]);
      if (name === 'api1') continue;
      r.end = rssMb(apis[index].pid);
    }
    delete rss.api1;

    // Let the unpaid orders run out and the expiry job return them (the verdict below says if not).
    const pending = () => withPg(db.url, async (pg) => Number((await pg.query(`SELECT count(*) AS n FROM orders WHERE status = 'PENDING_PAYMENT'`)).rows[0].n));
    await eventually(async () => (await pending()) === 0, (PAYMENT_TTL_S + 30) * 1000, 250, 'every unpaid order expired').catch(() => undefined);
    const overdue = await withPg(db.url, async (pg) => Number((await pg.query(`SELECT count(*) AS n FROM orders WHERE status = 'PENDING_PAYMENT' AND expires_at < now() - interval '2 seconds'`)).rows[0].n));
    const byStatus = await withPg(db.url, async (pg) => Object.fromEntries((await pg.query('SELECT status, count(*)::int AS n FROM orders GROUP BY status')).rows.map((r) => [r.status, r.n])));
    const flat = Object.entries(rss).every(([, r]) => r.start !== undefined && r.end !== undefined && r.end <= r.start * 1.5 + 20);
    const verdicts: Verdict[] = [
      ...(await saleInvariants('s8-soak', db.url, rec)),
      check('pays, cancels and restocks took effect (answered 200)', counts.pays > 0 && counts.cancels > 0 && counts.restocks > 0, JSON.stringify(counts)),
      ...(await Promise.all(products.map((p, i) => apiAgrees(urls[i], db.url, p.id)))),
      check('the expiry job returned every unpaid order', overdue === 0 && (byStatus.EXPIRED ?? 0) > 0, `${byStatus.EXPIRED ?? 0} expired, ${overdue} overdue still pending`),
      check('RSS flat (end <= 1.5 x start + 20 MB)', flat, Object.entries(rss).map(([n, r]) => `${n}: ${r.start} -> ${r.end} MB`).join('; ')),
      check('instance restarted and served again', restartMs !== undefined && apis[1].running, `SIGTERM + start took ${restartMs} ms`),
      contractAnswers(rec.violations),
    ];
    saveResult({
      id: 's8-soak',
      title: `Soak: ${SOAK_S} s of mixed traffic, one restart`,
      setup: `3 API instances, 1 redis-server, ORDER_PAYMENT_TTL_S=${PAYMENT_TTL_S}; 3 products of 200 units (limit 2), 400 users, 4 buyers (pay 40%, cancel 30%, leave to expire 30%), a restock every 5 s; CHAOS_SOAK_S=${SOAK_S}`,
      rec,
      faults: [`api1 stopped (SIGTERM, graceful) and started again at t=${SOAK_S / 2} s`],
      recovery: { 'restart (stop + start, ms)': restartMs },
      verdicts,
      extra: { rssMb: rss, ordersByStatus: byStatus, ...counts, purchases: attempts.length },
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
