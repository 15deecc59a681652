import { ApiProcess } from '../../scripts/infra/api-process';
import { runLoadTest } from '../../scripts/loadtest';
import { Api, expectInvariants, httpSender } from './api-client';
import { TEST_JWT_SECRET } from './app-harness';
import { freePort } from './free-port';

/** N built API instances on one database and Redis topology; the first one migrates. */
export async function startApis(count: number, env: Record<string, string>): Promise<ApiProcess[]> {
  const apis: ApiProcess[] = [];
  for (let i = 0; i < count; i++) {
    const base = { NODE_ENV: 'test', JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '100000', QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000', PUBLIC_READS_PER_SECOND_PER_ADDRESS: '100000', LOCK_WAIT_MS: '3000', ...env };
    const port = await freePort();
    const logFile = process.env.SCALE_LOG_DIR ? `${process.env.SCALE_LOG_DIR}/api-${port}.log` : undefined;
    apis.push(new ApiProcess({ port, env: i === 0 ? base : { ...base, DB_MIGRATE: 'false' }, logFile }));
  }
  await apis[0].start(60_000);
  await Promise.all(apis.slice(1).map((api) => api.start(60_000)));
  return apis;
}

/** Sum of every series of a Prometheus counter over the instances' /metrics. */
export async function metricTotal(apis: ApiProcess[], name: string): Promise<number> {
  const texts = await Promise.all(apis.map((api) => fetch(`${api.url}/metrics`).then((r) => r.text())));
  return texts.flatMap((text) => text.split('\n').filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))).reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

export interface SaleFigures {
  productId: string;
  purchases: number;
  responses503: number;
  lockLost: number;
  lockUnavailable: number;
  elapsedS: number;
  purchasesPerSecond: number;
  /** With a fault: ms from the kill until Redis took writes for the product again. */
  failoverMs?: number;
  /** Seconds from the kill until the next progress tick with new purchases (0.1 s resolution). */
  purchasesResumedAfterS?: number;
}

export interface SaleOptions {
  apis: ApiProcess[];
  databaseUrl: string;
  stock: number;
  /**
   * Called once, when a quarter of the stock is sold (mid-sale however fast the machine sells),
   * with the product id; resolves when Redis is back.
   */
  fault?: (productId: string) => Promise<void>;
}

/**
 * What the contract lets a purchase be answered, faults included: no 500, and no connection
 * dropped (the load test counts those as `error <kind>`).
 */
// 202 PURCHASE_PENDING: a batch whose outcome was not known by its deadline (in a failover with
// LOCK_WAIT_FOR_REPLICAS the wait can take it there); the load test settles it by purchase id and
// its invariants and the SQL audit below judge what it became.
const PURCHASE_ANSWERS = new Set(['201', '202 PURCHASE_PENDING', '409 SOLD_OUT', '409 PER_USER_LIMIT', '429 RATE_LIMITED', '503 LOCK_TIMEOUT', '503 OVERLOADED', '503 DEPENDENCY_UNAVAILABLE']);

/** A flash sale (twice the stock in attempts, retried on 503) across the instances, audited by the load test and by SQL. */
export async function runScaleSale({ apis, databaseUrl, stock, fault }: SaleOptions): Promise<SaleFigures> {
  const product = await new Api(httpSender(apis[0].url)).createProduct({ stock, perUserLimit: 1 });
  const [lostBefore, unavailableBefore] = [await metricTotal(apis, 'lock_lost_total'), await metricTotal(apis, 'lock_unavailable_total')];
  let faultAt: { at: number; created: number } | undefined;
  let failover: Promise<number> | undefined;
  let resumedAfterS: number | undefined;
  const result = await runLoadTest({
    urls: apis.map((api) => api.url),
    productId: product.id,
    users: stock * 2,
    connections: 24,
    requests: stock * 2,
    maxRetries: 30,
    tokenSecret: TEST_JWT_SECRET,
    reportDir: null,
    progressEveryMs: 100,
    onProgress: (p) => {
      if (fault && !faultAt && p.created >= stock / 4) {
        faultAt = { at: Date.now(), created: p.created };
        failover = fault(product.id).then(() => Date.now() - faultAt!.at);
      } else if (faultAt && resumedAfterS === undefined && p.created > faultAt.created) {
        resumedAfterS = Math.round((Date.now() - faultAt.at) / 100) / 10;
      }
    },
  });
  if (fault && !faultAt) throw new Error('the sale ended before the fault was injected');
  // The load test's own audit (through the API: durability of every 201, one order per key, the
  // per-user limit, conservation), then the same by SQL.
  expect(result.invariants.filter((r) => !r.ok)).toEqual([]);
  expect(Object.fromEntries(Object.entries(result.byCode).filter(([outcome]) => !PURCHASE_ANSWERS.has(outcome)))).toEqual({});
  await expectInvariants(databaseUrl, product.id);
  return {
    productId: product.id,
    purchases: result.purchases,
    responses503: result.byStatus['503'] ?? 0,
    lockLost: (await metricTotal(apis, 'lock_lost_total')) - lostBefore,
    lockUnavailable: (await metricTotal(apis, 'lock_unavailable_total')) - unavailableBefore,
    elapsedS: result.elapsedS,
    purchasesPerSecond: result.purchasesPerSecond,
    failoverMs: failover ? await failover : undefined,
    purchasesResumedAfterS: resumedAfterS,
  };
}
