import { adminAuth } from '../../support/tokens';
import { eventually, httpSender, invariants, Order, withPg } from '../../support/api-client';
import { historyVerdicts } from './history';
import { AttemptResult, Recorder } from './traffic';

export interface Verdict {
  check: string;
  ok: boolean;
  detail: string;
}

const verdict = (check: string, problems: string[], okDetail: string): Verdict => ({ check, ok: problems.length === 0, detail: problems.length ? problems.slice(0, 5).join('; ') : okDetail });

/**
 * The contract's invariants for every product of the database, by SQL: stock >= 0, conservation
 * (supplied = stock + Σ live quantity), per-user live quantity <= limit, quota rows = Σ live
 * quantity per (user, product), nothing sold beyond what was supplied.
 */
export async function sqlInvariants(databaseUrl: string): Promise<Verdict[]> {
  const ids = await withPg(databaseUrl, async (pg) => (await pg.query('SELECT id::text AS id FROM products ORDER BY id')).rows.map((r) => String(r.id)));
  const problems: string[] = [];
  let live = 0;
  let supplied = 0;
  for (const id of ids) {
    const report = await invariants(databaseUrl, id);
    problems.push(...report.violations.map((v) => `product ${id}: ${v}`));
    if (report.live > report.supplied) problems.push(`product ${id}: oversold, ${report.live} live units of ${report.supplied} supplied`);
    live += report.live;
    supplied += report.supplied;
  }
  return [verdict('SQL: stock>=0, conservation, per-user limit, quota rows, no oversell', problems, `${ids.length} product(s), ${live} live unit(s) of ${supplied} supplied`)];
}

/** Every 201 a client saw is an order in Postgres (contract invariant 5). */
export async function durability(databaseUrl: string, attempts: AttemptResult[]): Promise<Verdict> {
  const ids = [...new Set(attempts.flatMap((a) => a.orderIds))];
  const found = await withPg(databaseUrl, async (pg) => (await pg.query('SELECT id::text AS id FROM orders WHERE id = ANY($1::bigint[])', [ids])).rows.length);
  return verdict('every 201 durable', found === ids.length ? [] : [`${ids.length - found} of ${ids.length} answered orders missing`], `${ids.length} answered order(s) all in Postgres`);
}

/**
 * What every sale is judged by afterwards: the history checker on everything the clients were
 * told, against the stock the test created (the ground truth), and the SQL invariants beside it.
 */
export async function saleInvariants(id: string, databaseUrl: string, rec: Recorder): Promise<Verdict[]> {
  return [...(await historyVerdicts(id, databaseUrl, rec.history)).verdicts, ...(await sqlInvariants(databaseUrl))];
}

/**
 * Idempotency (invariant 4): one order per (user, key) at most; every 201 of a key names that
 * order; and an order exists for a key only if the client was told so (or gave up retrying).
 */
export async function idempotency(databaseUrl: string, attempts: AttemptResult[]): Promise<Verdict> {
  const rows = await withPg(databaseUrl, async (pg) => (await pg.query('SELECT id::text AS id, user_id, idempotency_key FROM orders WHERE idempotency_key IS NOT NULL')).rows);
  const byKey = new Map<string, string[]>();
  for (const r of rows) byKey.set(`${r.user_id}|${r.idempotency_key}`, [...(byKey.get(`${r.user_id}|${r.idempotency_key}`) ?? []), String(r.id)]);
  const problems: string[] = [];
  let retried = 0;
  for (const a of attempts) {
    const inDb = byKey.get(`${a.user}|${a.key}`) ?? [];
    if (a.attempts > 1) retried++;
    if (inDb.length > 1) problems.push(`${a.key}: ${inDb.length} orders`);
    if (new Set(a.orderIds).size > 1) problems.push(`${a.key}: 201s named different orders ${a.orderIds.join(',')}`);
    if (a.orderIds.length && inDb[0] !== a.orderIds[0]) problems.push(`${a.key}: answered ${a.orderIds[0]}, Postgres holds ${inDb[0] ?? 'nothing'}`);
    if (!a.orderIds.length && inDb.length && a.final !== 'gave-up') problems.push(`${a.key}: order ${inDb[0]} exists but the client was told ${a.final}`);
  }
  return verdict('idempotent retries: exactly one order per key', problems, `${attempts.length} keys (${retried} retried): one order per 201, none unreported`);
}

/** The API agrees with Postgres: product stock, and the live units its admin order listing shows. */
export async function apiAgrees(url: string, databaseUrl: string, productId: string): Promise<Verdict> {
  const send = httpSender(url, 15_000);
  const problems: string[] = [];
  try {
    await eventually(
      async () => {
        const db = await invariants(databaseUrl, productId);
        const product = await send({ method: 'GET', url: `/products/${productId}` });
        if (product.status === 200 && product.body.stock === db.stock) return true;
        problems[0] = `GET /products/${productId} says stock ${product.body?.stock} (${product.status}), Postgres ${db.stock}`;
        return false;
      },
      6000,
      300,
      'product stock via the API',
    );
    problems.length = 0;
  } catch {
    // the mismatch is reported below
  }
  let live = 0;
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { items: Order[]; nextCursor: string | null } } = await send({
      method: 'GET',
      url: `/orders?productId=${productId}&limit=500${cursor ? `&cursor=${cursor}` : ''}`,
      headers: adminAuth(),
    });
    if (page.status !== 200) {
      problems.push(`GET /orders answered ${page.status}`);
      break;
    }
    live += page.body.items.filter((o) => o.status === 'PENDING_PAYMENT' || o.status === 'PAID').reduce((s, o) => s + o.quantity, 0);
    cursor = page.body.nextCursor;
  } while (cursor);
  const db = await invariants(databaseUrl, productId);
  if (live !== db.live) problems.push(`GET /orders shows ${live} live units, Postgres ${db.live}`);
  return verdict(`API agrees with Postgres (product ${productId})`, problems, `stock ${db.stock}, ${db.live} live unit(s) via the API`);
}

/** Contract errors only: no 500, every error in the contract's shape, 503/429 with Retry-After. */
export function contractAnswers(violations: string[]): Verdict {
  return verdict('only contract answers (no 500, Retry-After on 503/429)', violations, 'all answers in contract shape');
}

export function check(name: string, ok: boolean, detail: string): Verdict {
  return { check: name, ok, detail };
}
