import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, httpSender, sleep, withPg } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { watchExits } from './support/background';
import { check, contractAnswers, saleInvariants, Verdict } from './support/checks';
import { baseEnv, startApis, stopAll } from './support/cluster';
import { saveResult } from './support/results';
import { firstSaleAfter, Recorder, runCrowd, salesUnderWay, users } from './support/traffic';

jest.setTimeout(120_000);

const BUYERS = 1200;
const STOCK = 1000;

/**
 * Ends every other session of the sale's database (the app's pools), as an operator or a failover
 * would, `times` times 50 ms apart (the pools reconnect in between); counts the sessions ended and
 * those that were running a statement then.
 */
async function terminateAppConnections(databaseUrl: string, times: number): Promise<{ ended: number; active: number }> {
  return withPg(databaseUrl, async (pg) => {
    const total = { ended: 0, active: 0 };
    for (let i = 0; i < times; i++) {
      const { rows } = await pg.query('SELECT pg_terminate_backend(pid) AS ended, state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
      total.ended += rows.filter((r) => r.ended === true).length;
      total.active += rows.filter((r) => r.ended === true && r.state === 'active').length;
      await sleep(50);
    }
    return total;
  });
}

/**
 * Every app connection to Postgres terminated mid-sale, twice: statements in flight die with
 * their connection, some after their commit. Each buyer must still be told the truth.
 */
describe('chaos 13: every app connection to Postgres terminated mid-sale', () => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let apis: ApiProcess[] = [];

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    apis = await startApis('s13', 2, baseEnv(db.url, redis.url));
  });

  afterAll(async () => {
    await stopAll(apis);
    await redis?.stop();
    await db?.drop();
  });

  it('tells every buyer the truth: no lie, no lost 201, no oversell, no 500', async () => {
    const urls = apis.map((a) => a.url);
    // Contract invariant 9: no instance exits because Postgres failed (a dead instance's buyers only see ECONNREFUSED).
    const exits = watchExits(apis);
    const product = await new Api(httpSender(urls[0])).createProduct({ stock: STOCK, perUserLimit: 1 });
    const rec = new Recorder();
    rec.track(product.id, { stock: STOCK, perUserLimit: 1 });
    // An instance that exited ends the sale early: its verdict below says so instead of a test timeout.
    const crowd = runCrowd({ urls, productId: product.id, rec, users: users('s13', BUYERS), concurrency: 12, thinkMs: 120, maxAttempts: 30, stop: () => exits.exits().length > 0 });
    await salesUnderWay(rec, 100);
    const faults: string[] = [];
    const ended: number[] = [];
    let active = 0;
    for (const round of [1, 2]) {
      rec.setPhase(`connections terminated (${round})`);
      const at = rec.now();
      const killed = await terminateAppConnections(db.url, 10);
      ended.push(killed.ended);
      active += killed.active;
      faults.push(`pg_terminate_backend of every session of the database, 10 times 50 ms apart from t=${(at / 1000).toFixed(1)} s: ${killed.ended} ended, ${killed.active} of them mid-statement`);
      await sleep(2500);
    }
    rec.setPhase('after the faults');
    const afterFaultMs = rec.now();
    const recoveryMs = await firstSaleAfter(rec, afterFaultMs, 20_000);
    await crowd;

    exits.stop();
    const verdicts: Verdict[] = [
      check('no instance exited', exits.exits().length === 0, exits.exits().length ? `exited: ${exits.exits().join(', ')}` : 'every instance up throughout'),
      check('the fault happened: app sessions ended both times', ended.every((n) => n > 0), `sessions ended: ${ended.join(', ')}`),
      // Idle sessions ended prove little: pg_stat_activity showed some ended while running a statement.
      check('the fault hit statements in flight', active > 0, `${active} session(s) ended while pg_stat_activity showed them active`),
      check('sales went on after the fault', recoveryMs !== undefined, `first 201 ${recoveryMs} ms after the second termination + 2.5 s`),
      check('no 500', rec.count('500') === 0, JSON.stringify(rec.outcomes)),
      contractAnswers(rec.violations),
      ...(await saleInvariants('s13-postgres-connections-killed', db.url, rec)),
    ];
    saveResult({
      id: 's13-postgres-connections-killed',
      title: 'Every app connection to Postgres terminated mid-sale',
      setup: `2 API instances; ${STOCK} units (limit 1), ${BUYERS} buyers, 12 in flight, each retrying with its Idempotency-Key`,
      rec,
      faults,
      recovery: { 'first 201 after the faults (ms)': recoveryMs, 'sessions ended': ended.join(', '), 'ended mid-statement': active },
      verdicts,
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
