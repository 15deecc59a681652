import Redis from 'ioredis';
import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, eventually, httpSender, invariants } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { apiAgrees, check, contractAnswers, saleInvariants, Verdict } from './support/checks';
import { baseEnv, startApis, stopAll } from './support/cluster';
import { freezeWhileHolding } from './support/lock-probe';
import { saveResult } from './support/results';
import { AttemptResult, Recorder, runCrowd, users } from './support/traffic';

jest.setTimeout(180_000);

// Enough that the sale is still under way when the freeze is confirmed and the holder killed.
const STOCK = 480;
const LOCK_TTL_MS = 2000;

describe('chaos 1: an API instance SIGKILLed while holding the product lock', () => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let apis: ApiProcess[] = [];
  let probe: Redis;

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    apis = await startApis('s1', 3, { ...baseEnv(db.url, redis.url), LOCK_TTL_MS: String(LOCK_TTL_MS), LOCK_WAIT_MS: '3000' });
    probe = redis.client();
  });

  afterAll(async () => {
    probe?.disconnect();
    await stopAll(apis);
    await redis?.stop();
    await db?.drop();
  });

  it('others sell on after the lease, conservation holds, retried keys got exactly one order', async () => {
    const product = await new Api(httpSender(apis[1].url)).createProduct({ stock: STOCK, perUserLimit: 2 });
    const rec = new Recorder();
    rec.track(product.id, { stock: STOCK, perUserLimit: 2 });
    const urls = apis.map((a) => a.url);
    const crowd = runCrowd({ urls, productId: product.id, rec, users: users('s1', 1000), concurrency: 9, maxAttempts: 40, purchasesPerUser: 2 });

    await eventually(async () => rec.createdAt.length >= 30, 60_000, 50, '30 sales before the kill');
    const held = await freezeWhileHolding(apis[0], probe, product.id);
    const killedAt = rec.now();
    const pid = apis[0].pid;
    apis[0].signal('SIGKILL');
    await apis[0].stop('SIGKILL');
    rec.setPhase('after SIGKILL of api0');
    const attempts: AttemptResult[] = await crowd;

    const recoveryMs = rec.firstCreatedAfter(killedAt);
    const db0 = await invariants(db.url, product.id);
    const verdicts: Verdict[] = [
      check('api0 held the product lock when killed', held.held, `confirmed after ${held.tries} probe(s), lease left ${held.leaseLeftMs ?? '?'} ms`),
      check('sales resumed on the other instances after the lease', recoveryMs !== undefined, `first 201 ${recoveryMs} ms after the kill (lease ${LOCK_TTL_MS} ms)`),
      ...(await saleInvariants('s1-kill-holder', db.url, rec)),
      await apiAgrees(apis[1].url, db.url, product.id),
      check('whole stock sold (demand 1000 > supply, clients retry)', db0.stock === 0, `stock left ${db0.stock}`),
      contractAnswers(rec.violations),
    ];
    saveResult({
      id: 's1-kill-holder',
      title: 'API instance SIGKILLed holding product locks',
      setup: `3 API instances, 1 redis-server, LOCK_TTL_MS=${LOCK_TTL_MS}; ${STOCK} units, 1000 users x 2 purchases (own Idempotency-Key, up to 40 tries across instances), 9 in flight`,
      rec,
      faults: [`SIGSTOP then SIGKILL of api0 (pid ${pid}) at t=${(killedAt / 1000).toFixed(1)} s while it held stock:${product.id}`],
      recovery: { 'first 201 after kill (ms)': recoveryMs, 'lease left at kill (ms)': held.leaseLeftMs },
      verdicts,
      extra: { ordersByStatus: db0.ordersByStatus, retriedAttempts: attempts.filter((a) => a.attempts > 1).length, gaveUp: attempts.filter((a) => a.final === 'gave-up').length },
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
