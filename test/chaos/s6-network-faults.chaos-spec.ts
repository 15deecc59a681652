import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, httpSender, sleep } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { apiAgrees, check, contractAnswers, saleInvariants, Verdict } from './support/checks';
import { baseEnv, msUntilHealthy, startApi, stopAll } from './support/cluster';
import { saveResult } from './support/results';
import { ProxyMode, TcpProxy } from './support/tcp-proxy';
import { firstSaleAfter, isAnswer, Recorder, runCrowd, salesUnderWay, users } from './support/traffic';

jest.setTimeout(240_000);

const PHASE_MS = 3000;
/** What "bounded" means here: REDIS_COMMAND_TIMEOUT_MS=500, DB_STATEMENT_TIMEOUT_MS=2000 (+1 s query timeout), 2 s pg connect timeout. */
const BOUND_MS = 10_000;
const CLIENT_TIMEOUT_MS = 30_000;

const viaPort = (url: string, port: number): string => {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
};

describe('chaos 6: latency, resets and black holes between the API and Redis / Postgres', () => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let redisProxy: TcpProxy;
  let pgProxy: TcpProxy;
  let api: ApiProcess;

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    [redisProxy, pgProxy] = await Promise.all([TcpProxy.start(redis.port), TcpProxy.start(Number(new URL(db.url).port || 5432))]);
    api = await startApi('s6', 0, {
      ...baseEnv(viaPort(db.url, pgProxy.port), viaPort(redis.url, redisProxy.port)),
      REDIS_COMMAND_TIMEOUT_MS: '500',
      DB_STATEMENT_TIMEOUT_MS: '2000',
      LOCK_WAIT_MS: '2000',
      LOCK_FALLBACK: 'db',
    });
  });

  afterAll(async () => {
    await stopAll([api]);
    await Promise.all([redisProxy?.close(), pgProxy?.close()]);
    await redis?.stop();
    await db?.drop();
  });

  it('answers every request within a bound (503 with Retry-After when a dependency is gone), never hangs, recovers', async () => {
    const product = await new Api(httpSender(api.url)).createProduct({ stock: 5000, perUserLimit: 2 });
    const rec = new Recorder();
    rec.track(product.id, { stock: 5000, perUserLimit: 2 });
    let stop = false;
    // Buyers make one try each, so that every answer the fault produced is seen as it was.
    const crowd = runCrowd({ urls: [api.url], productId: product.id, rec, users: users('s6', 5000), concurrency: 4, thinkMs: 50, maxAttempts: 1, timeoutMs: CLIENT_TIMEOUT_MS, purchasesPerUser: 2, stop: () => stop });
    const reads = (async () => {
      const send = httpSender(api.url, CLIENT_TIMEOUT_MS);
      while (!stop) {
        const t0 = performance.now();
        const phase = rec.currentPhase;
        const res = await send({ method: 'GET', url: `/products/${product.id}` }).catch((e: Error) => e);
        rec.record(res, performance.now() - t0, phase);
        if (isAnswer(res) && res.status >= 500 && res.status !== 503) break;
        await sleep(100);
      }
    })();

    // Black holes first, on established connections; resets after, on whatever is left.
    const phases: [string, TcpProxy, ProxyMode][] = [
      ['redis +200 ms each way', redisProxy, { kind: 'latency', ms: 200 }],
      ['redis black-holed', redisProxy, { kind: 'blackhole' }],
      ['redis healed', redisProxy, { kind: 'pass' }],
      ['redis connections reset', redisProxy, { kind: 'reset' }],
      ['redis healed again', redisProxy, { kind: 'pass' }],
      ['postgres +200 ms each way', pgProxy, { kind: 'latency', ms: 200 }],
      ['postgres black-holed', pgProxy, { kind: 'blackhole' }],
      ['postgres healed', pgProxy, { kind: 'pass' }],
      ['postgres connections reset', pgProxy, { kind: 'reset' }],
      ['postgres healed again', pgProxy, { kind: 'pass' }],
    ];
    rec.setPhase('baseline');
    await salesUnderWay(rec, 5);
    const recovery: Record<string, number | undefined> = {};
    /** What the proxy did during each fault phase: the evidence, from outside the app, that it happened. */
    const evidence: { name: string; what: string; count: number }[] = [];
    for (const [name, proxy, mode] of phases) {
      rec.setPhase(name);
      const at = rec.now();
      const before = { ...proxy.stats };
      proxy.setMode(mode);
      if (name.includes('healed')) {
        recovery[`${name}: /health 200 after (ms)`] = await msUntilHealthy([api.url], 20_000);
        recovery[`${name}: first 201 after (ms)`] = await firstSaleAfter(rec, at, 20_000);
      } else {
        // A black hole holds requests for seconds; stay long enough that fresh ones start inside it.
        await sleep(mode.kind === 'blackhole' ? 2 * PHASE_MS : PHASE_MS);
        const field = mode.kind === 'latency' ? 'chunksDelayed' : mode.kind === 'blackhole' ? 'chunksDropped' : 'reset';
        evidence.push({ name, what: field, count: proxy.stats[field] - before[field] });
      }
    }
    stop = true;
    await crowd;
    await reads;

    const faultPhases = phases.filter(([n]) => !n.includes('healed')).map(([n]) => n);
    const perPhase = faultPhases.map((n) => ({ n, p: rec.phases[n] ?? { requests: 0, outcomes: {}, maxLatencyMs: 0 } }));
    const hangs = Object.entries(rec.outcomes).filter(([k]) => k.startsWith('transport'));
    const pgDown = ['postgres connections reset', 'postgres black-holed'].map((n) => rec.phases[n]?.outcomes['503 DEPENDENCY_UNAVAILABLE'] ?? 0);
    const verdicts: Verdict[] = [
      check('every fault happened at the proxy', evidence.every((e) => e.count > 0), evidence.map((e) => `${e.name}: ${e.count} ${e.what}`).join('; ')),
      check('no hang: every request answered', hangs.length === 0, hangs.length ? `transport failures: ${JSON.stringify(Object.fromEntries(hangs))}` : `${rec.requests} requests, all answered`),
      check(`answers within ${BOUND_MS} ms under every fault`, perPhase.every(({ p }) => p.maxLatencyMs <= BOUND_MS), perPhase.map(({ n, p }) => `${n}: ${p.maxLatencyMs} ms`).join('; ')),
      check('503 DEPENDENCY_UNAVAILABLE while Postgres is unreachable', pgDown.every((n) => n > 0), `reset: ${pgDown[0]}, black hole: ${pgDown[1]}`),
      check('recovers once the network heals', Object.values(recovery).every((v) => v !== undefined && v < 10_000), JSON.stringify(recovery)),
      contractAnswers(rec.violations),
      ...(await saleInvariants('s6-network-faults', db.url, rec)),
      await apiAgrees(api.url, db.url, product.id),
    ];
    saveResult({
      id: 's6-network-faults',
      title: 'Latency, resets and black holes to Redis and Postgres',
      setup: '1 API instance reaching Redis and Postgres through our TCP proxies; REDIS_COMMAND_TIMEOUT_MS=500, DB_STATEMENT_TIMEOUT_MS=2000, LOCK_FALLBACK=db; 4 buyers (one try each, 2 purchases per user, perUserLimit 2) + product reads every 100 ms',
      rec,
      faults: phases.map(([n, , mode]) => `${n} (${mode.kind === 'blackhole' ? 2 * PHASE_MS : PHASE_MS} ms)`),
      recovery,
      verdicts,
      extra: { redisProxy: redisProxy.stats, pgProxy: pgProxy.stats },
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
