import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, httpSender, invariants, sleep } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { apiAgrees, check, contractAnswers, durability, idempotency, sqlInvariants, Verdict } from './support/checks';
import { baseEnv, startApi, stopAll } from './support/cluster';
import { saveResult } from './support/results';
import { TcpProxy } from './support/tcp-proxy';
import { AttemptResult, buyOnce, Recorder, runCrowd, users } from './support/traffic';

jest.setTimeout(180_000);

const LOCK_TTL_MS = 1000;
const STALL_MS = 3000;

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
    let frozenAt: number | undefined;
    // The moment api0 sends purchase_batch it holds the lease and has its fence: freeze it there,
    // and deliver the statement only after the lease has long expired and api1 has sold.
    proxy.tap = (chunk) => {
      if (frozenAt !== undefined || !chunk.includes('purchase_batch')) return;
      process.kill(a.pid!, 'SIGSTOP');
      frozenAt = rec.now();
      return STALL_MS;
    };
    rec.setPhase('api0 frozen holding the lease');
    const stalled = buyOnce('stalled-user', 'stalled-key', { urls: [a.url], productId: product.id, rec, maxAttempts: 1 });
    while (frozenAt === undefined) await sleep(5);
    const others: Promise<AttemptResult[]> = runCrowd({ urls: [b.url], productId: product.id, rec, users: users('s4', 20), concurrency: 4 });
    await sleep(STALL_MS + 300);
    process.kill(a.pid!, 'SIGCONT');
    const resumedAt = rec.now();
    const first = await stalled;
    proxy.tap = undefined;
    rec.setPhase('api0 resumed');
    const retry = await buyOnce('stalled-user', 'stalled-key', { urls: [a.url], productId: product.id, rec });
    const attempts = [...(await others), { ...retry, orderIds: [...first.orderIds, ...retry.orderIds] }];

    const soldDuringStall = rec.createdAt.filter((t) => t > frozenAt! && t < resumedAt).length;
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    const report = await invariants(db.url, product.id);
    const verdicts: Verdict[] = [
      check('api1 took the expired lease and sold while api0 was frozen', soldDuringStall > 0, `${soldDuringStall} sale(s) on api1 during the ${STALL_MS} ms stall`),
      check("api0's late write refused by the fence (503 LOCK_TIMEOUT, nothing written)", first.last === '503 LOCK_TIMEOUT' && first.orderIds.length === 0, `api0 answered ${first.last}`),
      check('the stalled client, retrying with its key, got exactly one order', retry.final === '201' && report.liveByUser['stalled-user'] === 1, `retry: ${retry.final}; live units of stalled-user: ${report.liveByUser['stalled-user'] ?? 0}`),
      ...(await sqlInvariants(db.url)),
      await durability(db.url, attempts),
      await idempotency(db.url, attempts),
      await apiAgrees(b.url, db.url, product.id),
      contractAnswers(rec.violations),
    ];
    saveResult({
      id: 's4-stalled-holder',
      title: 'Lock holder frozen past its lease',
      setup: `2 API instances (api0 reaches Postgres through our TCP proxy), 1 redis-server, LOCK_TTL_MS=${LOCK_TTL_MS}; 50 units, 1 stalled buyer on api0 and 20 buyers on api1`,
      rec,
      faults: [`SIGSTOP api0 the instant its purchase_batch (fence taken, lease held) reached the proxy; statement held ${STALL_MS} ms; SIGCONT after ${STALL_MS + 300} ms`],
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
    let frozen = false;
    proxy.tap = (chunk) => {
      if (frozen || !chunk.includes('purchase_batch')) return;
      frozen = true;
      process.kill(a.pid!, 'SIGSTOP');
      return 2 * LOCK_TTL_MS;
    };
    const pending = buyOnce('lapsed-user', 'lapsed-key', { urls: [a.url], productId: product.id, rec, maxAttempts: 1 });
    while (!frozen) await sleep(5);
    await sleep(2 * LOCK_TTL_MS + 300);
    process.kill(a.pid!, 'SIGCONT');
    const answer = await pending;
    proxy.tap = undefined;
    const report = await invariants(db.url, product.id);
    const verdicts: Verdict[] = [
      check('a committed purchase is answered 201', answer.last === '201' || report.live === 0, `answered ${answer.last}; orders in Postgres: ${report.live}`),
      ...(await sqlInvariants(db.url)),
      await idempotency(db.url, [answer]),
    ];
    saveResult({
      id: 's4b-lapsed-lease-commit',
      title: 'Lease lapsed during a valid write',
      setup: `api0 via the TCP proxy, LOCK_TTL_MS=${LOCK_TTL_MS}; 5 units, one buyer, nobody else waiting for the lock`,
      rec,
      faults: [`SIGSTOP api0 as its purchase_batch reached the proxy; statement held ${2 * LOCK_TTL_MS} ms (no other holder meanwhile); SIGCONT after ${2 * LOCK_TTL_MS + 300} ms`],
      recovery: { 'client was answered': answer.last, 'orders committed': report.live },
      verdicts,
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});