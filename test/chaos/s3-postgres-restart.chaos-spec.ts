import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, httpSender, invariants, sleep } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { apiAgrees, check, contractAnswers, sqlInvariants, Verdict } from './support/checks';
import { historyVerdicts } from './support/history';
import { baseEnv, msUntilHealthy, startApis, stopAll } from './support/cluster';
import { PrivatePostgres } from './support/private-postgres';
import { saveResult } from './support/results';
import { firstSaleAfter, Recorder, runCrowd, salesUnderWay, users } from './support/traffic';

jest.setTimeout(180_000);

const DOWN_MS = 3000;

describe('chaos 3: Postgres crashed and restarted mid-sale', () => {
  let redis: RedisServerProcess;
  let pg: PrivatePostgres;
  let dbUrl: string;
  let apis: ApiProcess[] = [];

  beforeAll(async () => {
    [redis, pg] = await Promise.all([RedisServerProcess.start(), PrivatePostgres.start()]);
    dbUrl = await pg.createDatabase('chaos_s3');
    apis = await startApis('s3', 2, baseEnv(dbUrl, redis.url));
  });

  afterAll(async () => {
    await stopAll(apis);
    await redis?.stop();
    await pg?.destroy();
  });

  it('answers 503 with Retry-After while down, leaves no partial order, recovers without an API restart', async () => {
    const urls = apis.map((a) => a.url);
    const pids = apis.map((a) => a.pid);
    const product = await new Api(httpSender(urls[0])).createProduct({ stock: 5000, perUserLimit: 2 });
    const rec = new Recorder();
    rec.track(product.id, { stock: 5000, perUserLimit: 2 });
    let stop = false;
    const crowd = runCrowd({ urls, productId: product.id, rec, users: users('s3', 5000), concurrency: 6, thinkMs: 20, maxAttempts: 60, purchasesPerUser: 2, stop: () => stop });
    await salesUnderWay(rec, 10);
    // pg_ctl runs through runuser/unshare and takes a while to spawn: purchases answered meanwhile
    // were served by a live server. "Down" starts once `pg_ctl stop -w` has returned, when the
    // postmaster has removed its pid file, i.e. after every backend exited.
    rec.setPhase('postgres stopping');
    await pg.stopServer('immediate');
    rec.setPhase('postgres down');
    const downAt = rec.now();
    const downAtMs = Date.now();
    await sleep(DOWN_MS);
    const restartAtMs = Date.now();
    await pg.startServer();
    rec.setPhase('postgres back');
    const upAt = rec.now();
    const healthyMs = await msUntilHealthy(urls);
    const recoveryMs = await firstSaleAfter(rec, upAt, 30_000);
    stop = true;
    const attempts = await crowd;

    const down = rec.phases['postgres down'];
    const unavailable = down?.outcomes['503 DEPENDENCY_UNAVAILABLE'] ?? 0;
    // Purchases sent after the server was gone and answered before its restart began. Every 201
    // path needs Postgres after the request arrived (a commit, a read-back of a lost commit, or the
    // lookup of a replayed key), so none of them can be a 201.
    const whollyDown = rec.history.ops.filter((r) => r.op === 'purchase' && r.invokeMs >= downAtMs && r.completeMs <= restartAtMs);
    const soldWhileDown = whollyDown.filter((r) => r.status === 201).length;
    const sameProcesses = apis.every((a, i) => a.running && a.pid === pids[i]);
    const verdicts: Verdict[] = [
      check('503 DEPENDENCY_UNAVAILABLE while Postgres is down', unavailable > 0, `${unavailable} x 503 among purchases sent while down; outcomes ${JSON.stringify(down?.outcomes)}`),
      check(
        'no 201 sent and answered while Postgres was down',
        whollyDown.length > 0 && soldWhileDown === 0,
        `${soldWhileDown} x 201 of ${whollyDown.length} purchase(s) sent after the stop completed and answered before the restart began`,
      ),
      contractAnswers(rec.violations),
      check('recovered without restarting the API', sameProcesses && recoveryMs !== undefined && recoveryMs < 15_000, `same pids: ${sameProcesses}; first 201 ${recoveryMs} ms after Postgres was back; /health 200 after ${healthyMs} ms`),
      ...(await sqlInvariants(dbUrl, rec.history)),
      ...(await historyVerdicts('s3-postgres-restart', dbUrl, rec.history)).verdicts,
      await apiAgrees(urls[1], dbUrl, product.id),
    ];
    saveResult({
      id: 's3-postgres-restart',
      title: 'Postgres crashed and restarted mid-sale',
      setup: '2 API instances, a private Postgres (initdb in .infra/), 1 redis-server; 5000 units, 6 buyers in flight (2 purchases per user, perUserLimit 2) with Idempotency-Keys and retries',
      rec,
      faults: [`pg_ctl stop -m immediate (a crash), stopped at t=${(downAt / 1000).toFixed(1)} s, down ${DOWN_MS} ms, then start (crash recovery)`],
      recovery: { 'first 201 after Postgres back (ms)': recoveryMs, 'all /health 200 after Postgres back (ms)': healthyMs },
      verdicts,
      extra: { ordersByStatus: (await invariants(dbUrl, product.id)).ordersByStatus, retriedAttempts: attempts.filter((a) => a.attempts > 1).length },
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
