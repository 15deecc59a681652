import { ApiProcess } from '../../../scripts/infra/api-process';
import { ApiResponse, httpSender, sleep, withPg } from '../../support/api-client';
import { auth } from '../../support/tokens';
import { orderStatusOf, recorded } from './history';
import { AttemptResult, buyOnce, BuyOptions, isAnswer, Recorder } from './traffic';

/** Watches instances for exits while a scenario runs (contract invariant 9: no instance exits). */
export function watchExits(apis: ApiProcess[]): { exits: () => string[]; stop: () => void } {
  const seen: string[] = [];
  const timer = setInterval(() => {
    apis.forEach((api, i) => {
      const name = `api${i}`;
      if (!api.running && !seen.includes(name)) seen.push(name);
    });
  }, 100);
  return { exits: () => [...seen], stop: () => clearInterval(timer) };
}

/**
 * A switch in Postgres that makes the expiry job's UPDATE fail (a trigger raising on
 * PENDING_PAYMENT → EXPIRED) while it is on: a database error in the middle of an expiry run.
 */
export async function installExpiryFault(databaseUrl: string): Promise<{ set: (failing: boolean) => Promise<void>; fired: () => Promise<number> }> {
  await withPg(databaseUrl, async (pg) => {
    await pg.query('CREATE TABLE chaos_switch (failing boolean NOT NULL)');
    await pg.query('INSERT INTO chaos_switch VALUES (false)');
    // A sequence counts the failures: nextval survives the rollback the exception causes.
    await pg.query('CREATE SEQUENCE chaos_fault_fired');
    await pg.query(`CREATE FUNCTION chaos_expiry_fault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'EXPIRED' AND (SELECT failing FROM chaos_switch) THEN
          PERFORM nextval('chaos_fault_fired');
          RAISE EXCEPTION 'chaos: injected failure during an expiry run';
        END IF;
        RETURN NEW;
      END $$`);
    await pg.query('CREATE TRIGGER chaos_expiry_fault BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION chaos_expiry_fault()');
  });
  return {
    set: (failing) => withPg(databaseUrl, (pg) => pg.query('UPDATE chaos_switch SET failing = $1', [failing])).then(() => undefined),
    fired: () => withPg(databaseUrl, async (pg) => Number((await pg.query('SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM chaos_fault_fired')).rows[0].n)),
  };
}

/**
 * Samples Postgres every `everyMs` until `done` settles: the most lock requests seen waiting at
 * once in this database (pg_locks not granted), and how many samples saw any. Contention shown
 * by the database itself, not by the app.
 */
export async function sampleLockWaits(databaseUrl: string, done: Promise<unknown>, everyMs = 25): Promise<{ samples: number; waiting: number; most: number }> {
  let over = false;
  void done.finally(() => (over = true));
  return withPg(databaseUrl, async (pg) => {
    const seen = { samples: 0, waiting: 0, most: 0 };
    while (!over) {
      const { rows } = await pg.query('SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted AND a.datname = current_database()');
      seen.samples++;
      if (rows[0].n > 0) seen.waiting++;
      seen.most = Math.max(seen.most, rows[0].n);
      await new Promise((r) => setTimeout(r, everyMs));
    }
    return seen;
  });
}

/** Deadlocks Postgres has broken in this database so far. */
export async function deadlocks(databaseUrl: string): Promise<number> {
  return withPg(databaseUrl, async (pg) => Number((await pg.query('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()')).rows[0].deadlocks));
}

/** Orders still waiting for payment. */
export async function pendingOrders(databaseUrl: string): Promise<number> {
  return withPg(databaseUrl, async (pg) => Number((await pg.query(`SELECT count(*) AS n FROM orders WHERE status = 'PENDING_PAYMENT'`)).rows[0].n));
}

/** Orders whose payment window closed more than `graceMs` ago and that are still PENDING_PAYMENT. */
export async function overdueOrders(databaseUrl: string, graceMs: number): Promise<number> {
  return withPg(databaseUrl, async (pg) =>
    Number((await pg.query(`SELECT count(*) AS n FROM orders WHERE status = 'PENDING_PAYMENT' AND expires_at < now() - $1 * interval '1 millisecond'`, [graceMs])).rows[0].n),
  );
}

export interface RepeatBuyerOptions extends BuyOptions {
  users: string[];
  /** Purchases each user makes, one after another (each with its own Idempotency-Key). */
  buysPerUser: number;
  /** Every n-th created order is cancelled by its user straight away (0: none). */
  cancelEvery: number;
  concurrency: number;
  stop?: () => boolean;
  /** Distinguishes the keys of several crowds buying for the same users. */
  keyPrefix?: string;
}

/**
 * Repeat buyers: each user buys several times (so per-user quotas are raised and lowered while
 * other batches hold their rows) and cancels some orders at once; cancels are recorded as answers
 * too, so a 500 from either path is a contract violation.
 */
export async function runRepeatBuyers(o: RepeatBuyerOptions): Promise<AttemptResult[]> {
  const queue = [...o.users];
  const results: AttemptResult[] = [];
  let created = 0;
  const worker = async () => {
    for (let user = queue.shift(); user !== undefined && !o.stop?.(); user = queue.shift()) {
      for (let n = 0; n < o.buysPerUser && !o.stop?.(); n++) {
        const result = await buyOnce(user, `${user}-${o.keyPrefix ?? 'buy'}${n}`, o);
        results.push(result);
        if (result.orderId && o.cancelEvery > 0 && ++created % o.cancelEvery === 0) await cancelOnce(o.urls, user, result.orderId, o.rec);
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return results;
}

/** A user cancels their order, retrying 503 after Retry-After; every answer is recorded (and in the history). */
async function cancelOnce(urls: string[], user: string, orderId: string, rec: Recorder): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const t0 = performance.now();
    const res: ApiResponse | Error = await recorded(
      rec.history,
      httpSender(urls[attempt % urls.length], 15_000),
      { method: 'POST', url: `/orders/${orderId}/cancel`, headers: auth(user) },
      { op: 'cancel', orderId, actor: 'user', userId: user },
      orderStatusOf,
    );
    rec.record(res, performance.now() - t0);
    if (isAnswer(res) && res.status !== 503) return;
    await sleep(200);
  }
}
