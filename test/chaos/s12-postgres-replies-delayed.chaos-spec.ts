import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, httpSender, sleep } from '../support/api-client';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { watchExits } from './support/background';
import { check, contractAnswers, saleInvariants, Verdict } from './support/checks';
import { baseEnv, startApis, stopAll } from './support/cluster';
import { saveResult } from './support/results';
import { TcpProxy } from './support/tcp-proxy';
import { firstSaleAfter, Recorder, runCrowd, salesUnderWay, users } from './support/traffic';

jest.setTimeout(120_000);

/** The pg client gives up after the statement timeout (+1 s query timeout) while Postgres goes on and commits. */
const STATEMENT_TIMEOUT_MS = 1000;
const HOLD_MS = 2500;
const BUYERS = 1200;
const STOCK = 1000;

/**
 * Postgres's replies held back past the client's timeout, twice, mid-sale: the commit lands and
 * the instance hears of it too late. The only fault where "done" and "lost answer" meet; every
 * buyer must still be told the truth (201, a refusal that did nothing, or 202 then the outcome).
 */
describe('chaos 12: Postgres replies delayed past the client timeout', () => {
  let redis: RedisServerProcess;
  let db: TestDatabase;
  let proxy: TcpProxy;
  let apis: ApiProcess[] = [];

  beforeAll(async () => {
    [redis, db] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    proxy = await TcpProxy.start(Number(new URL(db.url).port || 5432));
    const proxied = new URL(db.url);
    proxied.port = String(proxy.port);
    apis = await startApis('s12', 2, { ...baseEnv(proxied.toString(), redis.url), DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
  });

  afterAll(async () => {
    await stopAll(apis);
    await proxy?.close();
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
    const crowd = runCrowd({ urls, productId: product.id, rec, users: users('s12', BUYERS), concurrency: 12, thinkMs: 120, maxAttempts: 30 });
    await salesUnderWay(rec, 100);
    const faults: string[] = [];
    const delayedBefore = proxy.stats.repliesDelayed;
    for (const window of [1, 2]) {
      rec.setPhase(`replies held ${HOLD_MS} ms (${window})`);
      faults.push(`every Postgres reply held ${HOLD_MS} ms for ${HOLD_MS} ms at t=${(rec.now() / 1000).toFixed(1)} s (statement timeout ${STATEMENT_TIMEOUT_MS} ms)`);
      proxy.replyDelayMs = HOLD_MS;
      await sleep(HOLD_MS);
      proxy.replyDelayMs = 0;
      rec.setPhase(`after window ${window}`);
      await sleep(window === 1 ? 2500 : 0);
    }
    const afterFaultMs = rec.now();
    const recoveryMs = await firstSaleAfter(rec, afterFaultMs, 20_000);
    await crowd;

    // The fault happened: replies were held, and some answers came only after the pg client had
    // given up (the instance resolved the outcome, or answered 202 and a retry learnt it).
    const held = proxy.stats.repliesDelayed - delayedBefore;
    const late = rec.history.ops.filter((op) => op.op === 'purchase' && op.status !== undefined && op.completeMs - op.invokeMs > STATEMENT_TIMEOUT_MS).length;
    const pending = rec.count('202');
    exits.stop();
    const verdicts: Verdict[] = [
      check('no instance exited', exits.exits().length === 0, exits.exits().length ? `exited: ${exits.exits().join(', ')}` : 'every instance up throughout'),
      check('the fault happened: replies held, answers later than the statement timeout', held > 0 && late > 0, `${held} reply chunk(s) held; ${late} answer(s) after > ${STATEMENT_TIMEOUT_MS} ms; ${pending} x 202 PURCHASE_PENDING`),
      // The proxy's own clock: some reply sat in it longer than the pg client waits (statement
      // timeout + 1 s query timeout), so the client had given up on it.
      check(
        'a reply was held past the client timeout',
        proxy.stats.longestReplyHoldMs > STATEMENT_TIMEOUT_MS + 1000,
        `longest hold ${proxy.stats.longestReplyHoldMs} ms (client gives up after ${STATEMENT_TIMEOUT_MS + 1000} ms); ${proxy.stats.repliesLost} held reply(ies) found the client gone`,
      ),
      check('sales went on after the fault', recoveryMs !== undefined, `first 201 ${recoveryMs} ms after the last window`),
      check('no 500', rec.count('500') === 0, JSON.stringify(rec.outcomes)),
      contractAnswers(rec.violations),
      ...(await saleInvariants('s12-postgres-replies-delayed', db.url, rec)),
    ];
    saveResult({
      id: 's12-postgres-replies-delayed',
      title: 'Postgres replies delayed past the client timeout',
      setup: `2 API instances, DB_STATEMENT_TIMEOUT_MS=${STATEMENT_TIMEOUT_MS}, Postgres behind a TCP proxy; ${STOCK} units (limit 1), ${BUYERS} buyers, 12 in flight, each retrying with its Idempotency-Key`,
      rec,
      faults,
      recovery: { 'first 201 after the last window (ms)': recoveryMs, 'reply chunks held': held, 'answers after the statement timeout': late, '202 PURCHASE_PENDING': pending },
      verdicts,
    });
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
  });
});
