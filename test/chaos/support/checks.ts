import { adminAuth } from '../../support/tokens';
import { eventually, httpSender, invariants, Order } from '../../support/api-client';
import { historyVerdicts } from './history';
import { HistoryLog } from '../../../scripts/history/writer';
import { Recorder } from './traffic';

export interface Verdict {
  check: string;
  ok: boolean;
  detail: string;
}

const verdict = (check: string, problems: string[], okDetail: string): Verdict => ({ check, ok: problems.length === 0, detail: problems.length ? problems.slice(0, 5).join('; ') : okDetail });

/**
 * The contract's invariants for every product the test created, by SQL, against the stock the
 * test sent (never the app's own `supplied` bookkeeping): stock >= 0, per-user live quantity <=
 * the limit the test set, quota rows = Σ live quantity per (user, product), and, for a product no
 * admin stock change touched, conservation (stock + Σ live = the stock the test created it with).
 * With stock changes the history checker judges supply at every instant instead.
 */
export async function sqlInvariants(databaseUrl: string, history: HistoryLog): Promise<Verdict[]> {
  const problems: string[] = [];
  let live = 0;
  let created = 0;
  for (const truth of history.meta.products) {
    const id = truth.productId;
    const report = await invariants(databaseUrl, id);
    const changed = history.ops.some((op) => op.op === 'setStock' && op.productId === id && !(op.status !== undefined && op.status >= 400));
    if (report.stock < 0) problems.push(`product ${id}: stock ${report.stock} < 0`);
    for (const [user, units] of Object.entries(report.liveByUser)) if (units > truth.perUserLimit) problems.push(`product ${id}: ${user} holds ${units} live units, limit ${truth.perUserLimit}`);
    for (const user of new Set([...Object.keys(report.liveByUser), ...Object.keys(report.quotaByUser)]))
      if ((report.quotaByUser[user] ?? 0) !== (report.liveByUser[user] ?? 0)) problems.push(`product ${id}: quota row of ${user} is ${report.quotaByUser[user] ?? 0}, live orders hold ${report.liveByUser[user] ?? 0}`);
    if (!changed && report.stock + report.live !== truth.initialStock) problems.push(`product ${id}: stock ${report.stock} + live ${report.live} != ${truth.initialStock} created`);
    if (!changed && report.live > truth.initialStock) problems.push(`product ${id}: oversold, ${report.live} live units of ${truth.initialStock} created`);
    live += report.live;
    created += truth.initialStock;
  }
  return [verdict('SQL: stock>=0, conservation against the stock sent, per-user limit, quota rows', problems, `${history.meta.products.length} product(s), ${live} live unit(s); ${created} unit(s) created by the test`)];
}

/**
 * What every sale is judged by afterwards: the history checker on everything the clients were
 * told, against the stock the test created (the ground truth), and the SQL invariants beside it.
 */
export async function saleInvariants(id: string, databaseUrl: string, rec: Recorder): Promise<Verdict[]> {
  return [...(await historyVerdicts(id, databaseUrl, rec.history)).verdicts, ...(await sqlInvariants(databaseUrl, rec.history))];
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
