import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, eventually, httpSender, invariants, withPg } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { apiAgrees, check, contractAnswers, saleInvariants, sqlInvariants, Verdict } from './support/checks';
import { historyVerdicts } from './support/history';
import { baseEnv, startApi, stopAll } from './support/cluster';
import { saveResult } from './support/results';
import { TcpProxy } from './support/tcp-proxy';
import { AttemptResult, buyOnce, Recorder, runCrowd, users } from './support/traffic';

jest.setTimeout(180_000);

const LOCK_TTL_MS = 1000;
/** Upper bounds of the waits below (they end as soon as their condition holds). */
const WAIT_MS = 30_000;
const POLL_MS = 20;

/** The Redis key of a product's lease, as the app names it (prefix `fs:`, Cluster hash tag). */
const leaseKey = (productId: string): string => `fs:lock:{stock:${productId}}`;

const viaPort = (url: string, port: number): string => {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
};

describe('chaos 4: a lock holder frozen past its lease between taking its fence and writing', () => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let proxy: TcpProxy;
  let apis: ApiProcess[] = [];

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    proxy = await TcpProxy.start(Number(new URL(db.url).port || 5432));
    const env = { ...baseEnv(db.url, redis.url), LOCK_TTL_MS: String(LOCK_TTL_MS), LOCK_WAIT_MS: '5000' };
    // api0 reaches Postgres through the proxy, which holds back its purchase statement on cue.
    apis = [await startApi('s4', 0, { ...env, DATABASE_URL: viaPort(db.url, proxy.port) }), await startApi('s4', 1, env)];
  });

  afterAll(async () => {
    await stopAll(apis);
    await proxy?.close();
    await redis?.stop();
    await db?.drop();
  });

  it("rejects the stale holder's late write by its fence; no double sale", async () => {
    const [a, b] = apis;
    const product = await new Api(httpSender(b.url)).createProduct({ stock: 50, perUserLimit: 1 });
    const rec = new Recorder();
    rec.track(product.id, { stock: 50, perUserLimit: 1 });
    let frozenAt: number | undefined;
    // The moment api0 sends purchase_batch it holds the lease and has its fence: freeze it there
    // and hold the statement until api1, which takes the lease once it expires, has sold; then
    // let Postgres answer the stale statement, and only then wake api0.
    proxy.tap = (chunk) => {
      if (frozenAt !== undefined || !chunk.includes('purchase_batch')) return;
      process.kill(a.pid!, 'SIGSTOP');
      frozenAt = rec.now();
      return 'hold';
    };
    rec.setPhase('api0 frozen holding the lease');
    const stalled = buyOnce('stalled-user', 'stalled-key', { urls: [a.url], productId: product.id, rec, maxAttempts: 1 });
    await eventually(async () => frozenAt !== undefined, WAIT_MS, POLL_MS, "api0's purchase_batch at the proxy");
    const others: Promise<AttemptResult[]> = runCrowd({ urls: [b.url], productId: product.id, rec, users: users('s4', 20), concurrency: 4 });
    await eventually(async () => rec.createdAt.some((t) => t > frozenAt!), WAIT_MS, POLL_MS, 'a sale on api1 while api0 is frozen');
    const heldFor = rec.now() - frozenAt!;
    await proxy.release();
    process.kill(a.pid!, 'SIGCONT');
    const resumedAt = rec.now();
    const first = await stalled;
    proxy.tap = undefined;
    rec.setPhase('api0 resumed');
    const retry = await buyOnce('stalled-user', 'stalled-key', { urls: [a.url], productId: product.id, rec });
    await others;

    const soldDuringStall = rec.createdAt.filter((t) => t > frozenAt! && t < resumedAt).length;
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    const report = await invariants(db.url, product.id);
    const verdicts: Verdict[] = [
      check('api1 took the expired lease and sold while api0 was frozen', soldDuringStall > 0, `${soldDuringStall} sale(s) on api1 during the ${resumedAt - frozenAt!} ms stall`),
      check("api0's late write refused by the fence (503 LOCK_TIMEOUT, nothing written)", first.last === '503 LOCK_TIMEOUT' && first.orderIds.length === 0, `api0 answered ${first.last}`),
      check('the stalled client, retrying with its key, got exactly one order', retry.final === '201' && report.liveByUser['stalled-user'] === 1, `retry: ${retry.final}; live units of stalled-user: ${report.liveByUser['stalled-user'] ?? 0}`),
      ...(await saleInvariants('s4-stalled-holder', db.url, rec)),
      await apiAgrees(b.url, db.url, product.id),
      contractAnswers(rec.violations),
    ];
    saveResult({
      id: 's4-stalled-holder',
      title: 'Lock holder frozen past its lease',
      setup: `2 API instances (api0 reaches Postgres through our TCP proxy), 1 redis-server, LOCK_TTL_MS=${LOCK_TTL_MS}; 50 units, 1 stalled buyer on api0 and 20 buyers on api1`,
      rec,
      faults: [`SIGSTOP api0 the instant its purchase_batch (fence taken, lease held) reached the proxy; statement held until api1 had sold (${heldFor} ms), SIGCONT once Postgres had answered it`],
      recovery: { 'sales on api1 during the stall': soldDuringStall, "api0's stale write answered": first.last },
      verdicts,
      extra: { purchasesOnApi0: metrics.split('\n').filter((l) => l.startsWith('purchases_total')), ordersByStatus: report.ordersByStatus },
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });

  // The lease ran out while nobody else wanted the lock: the fence is still the newest, so the
  // write is valid and commits. The client must then hear 201, not a 503 for a committed order.
  it('answers 201 for a write its still-newest fence made, even though the lease lapsed meanwhile', async () => {
    const [a] = apis;
    const product = await new Api(httpSender(a.url)).createProduct({ stock: 5, perUserLimit: 1 });
    const rec = new Recorder();
    rec.track(product.id, { stock: 5, perUserLimit: 1 });
    const redisClient = redis.client();
    let frozen = false;
    // Freeze api0 with its statement at the proxy, and keep the statement there until the lease
    // is gone from Redis; then let Postgres run it, see it committed, and only then wake api0.
    proxy.tap = (chunk) => {
      if (frozen || !chunk.includes('purchase_batch')) return;
      frozen = true;
      process.kill(a.pid!, 'SIGSTOP');
      return 'hold';
    };
    const pending = buyOnce('lapsed-user', 'lapsed-key', { urls: [a.url], productId: product.id, rec, maxAttempts: 1 });
    let committed: { id: string; status: string }[];
    let leaseAtFreezeMs: number;
    try {
      await eventually(async () => frozen, WAIT_MS, POLL_MS, "api0's purchase_batch at the proxy");
      leaseAtFreezeMs = await redisClient.pttl(leaseKey(product.id));
      await eventually(async () => (await redisClient.exists(leaseKey(product.id))) === 0, WAIT_MS, POLL_MS, 'the lease to lapse');
      await proxy.release();
      committed = await withPg(db.url, async (pg) => (await pg.query("SELECT id::text AS id, status FROM orders WHERE user_id = 'lapsed-user' AND product_id = $1", [product.id])).rows);
    } finally {
      process.kill(a.pid!, 'SIGCONT');
      proxy.tap = undefined;
      redisClient.disconnect();
    }
    const answer = await pending;
    const report = await invariants(db.url, product.id);
    const verdicts: Verdict[] = [
      check('the lease was held when api0 froze, and lapsed before its statement ran', leaseAtFreezeMs > 0, `lease PTTL at the freeze: ${leaseAtFreezeMs} ms; statement sent on once the lease key was gone`),
      check('the statement of the lapsed lease committed one order (its fence was still the newest)', committed.length === 1 && report.live === 1, `orders of lapsed-user in Postgres: ${committed.length}; live units: ${report.live}`),
      check('the committed purchase is answered 201 with that order', answer.last === '201' && answer.orderIds.length === 1 && answer.orderIds[0] === committed[0]?.id, `answered ${answer.last}, order ${answer.orderIds.join(', ') || 'none'}; committed ${committed[0]?.id ?? 'none'}`),
      ...(await sqlInvariants(db.url, rec.history)),
      ...(await historyVerdicts('s4b-lapsed-lease-commit', db.url, rec.history)).verdicts,
    ];
    saveResult({
      id: 's4b-lapsed-lease-commit',
      title: 'Lease lapsed during a valid write',
      setup: `api0 via the TCP proxy, LOCK_TTL_MS=${LOCK_TTL_MS}; 5 units, one buyer, nobody else waiting for the lock`,
      rec,
      faults: ['SIGSTOP api0 as its purchase_batch reached the proxy; statement held until the lease key was gone from Redis (no other holder meanwhile); SIGCONT once Postgres had committed it'],
      recovery: { 'client was answered': answer.last, 'orders committed': report.live },
      verdicts,
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});