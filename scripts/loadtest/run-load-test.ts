import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { checkHistory } from '../history/check-history';
import { readFinalOrders } from '../history/final-state';
import { HistoryLog } from '../history/writer';
import { ApiClient } from './api-client';
import { readSnapshot } from './audit';
import { readStockUntil } from './buyer-actions';
import { drive } from './driver';
import { HttpTransport } from './http-transport';
import { checkInvariants, InvariantInput } from './invariants';
import { mintToken } from './jwt';
import { Recorder } from './recorder';
import { admissionDelta, readAdmission } from './server-metrics';
import { writeReport } from './report-writer';
import { latencyHistogram, perSecond, summarizeLatency } from './stats';
import { LoadTestOptions, LoadTestResult } from './types';
import { driveWaitingRoom } from './waiting-room-driver';
import { isLoopback, summarizeWaitingRoom, waitingRoomInvariants } from './waiting-room-run';
import { BuyerTrace } from './waiting-room-trace';

const DEFAULTS = {
  perUserLimit: 1,
  quantity: 1,
  maxRetries: 3,
  maxRetryDelayMs: 2000,
  requestTimeoutMs: 10_000,
  reportDir: 'reports',
};
/** Re-audits when a check fails, for answers served from a cache that has not caught up yet. */
const AUDIT_SETTLE_TRIES = 3;

export function validateOptions(o: LoadTestOptions): void {
  const problems: string[] = [];
  if (!o.urls.length) problems.push('at least one --url is required');
  for (const url of o.urls) if (!/^https?:\/\/[^/]+/.test(url)) problems.push(`--url ${url} is not an http(s) URL`);
  if ((o.productId === undefined) === (o.stock === undefined))
    problems.push('exactly one of --product and --stock is required');
  if (o.waitingRoom) {
    if (o.durationS === undefined || o.requests !== undefined)
      problems.push('--waiting-room takes --duration (its time bound), not --requests');
    for (const url of o.urls)
      if (!isLoopback(url) && !o.allowRemote)
        problems.push(`--waiting-room targets loopback only (${url}); pass --allow-remote to load another host`);
  } else if ((o.durationS === undefined) === (o.requests === undefined))
    problems.push('exactly one of --duration and --requests is required');
  if (!o.waitingRoom && (o.admitPerSecond !== undefined || o.admissionTtlS !== undefined))
    problems.push('--admit-per-second and --admission-ttl-s need --waiting-room');
  const positive: [string, number | undefined][] = [
    ['--users', o.users],
    ['--connections', o.connections],
    ['--duration', o.durationS],
    ['--requests', o.requests],
    ['--quantity', o.quantity],
    ['--per-user-limit', o.perUserLimit],
    ['--admission-ttl-s', o.admissionTtlS],
    ['--pay-every', o.payEvery],
    ['--cancel-every', o.cancelEvery],
    ['--read-every-ms', o.readEveryMs],
    ['--payment-ttl-s', o.paymentTtlS],
  ];
  if (o.admitPerSecond !== undefined && !(Number.isInteger(o.admitPerSecond) && o.admitPerSecond > 0))
    problems.push('--admit-per-second must be a positive integer');
  for (const [flag, value] of positive)
    if (value !== undefined && !(Number.isFinite(value) && value > 0))
      problems.push(`${flag} must be a positive number`);
  if (o.stock !== undefined && !(Number.isInteger(o.stock) && o.stock >= 0))
    problems.push('--stock must be an integer >= 0');
  if (o.maxRetries !== undefined && !(Number.isInteger(o.maxRetries) && o.maxRetries >= 0))
    problems.push('--max-retries must be an integer >= 0');
  if (!o.tokenSecret) problems.push('a token secret is required');
  if (problems.length) throw new Error(problems.join('; '));
}

/** Drives purchases against a deployment, audits the contract's invariants, and writes the report. */
export async function runLoadTest(options: LoadTestOptions): Promise<LoadTestResult> {
  validateOptions(options);
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const urls = o.urls.map((url) => url.replace(/\/+$/, ''));
  const runId = o.runId ?? `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const claims = { issuer: o.tokenIssuer, audience: o.tokenAudience };
  const api = new ApiClient(urls[0], mintToken(o.tokenSecret, `lt-admin-${runId}`, 'admin', undefined, claims));

  let start: InvariantInput['start'];
  let product;
  if (o.stock !== undefined) {
    const waitingRoom = o.waitingRoom
      ? stripUndefined({ admitPerSecond: o.admitPerSecond, admissionTtlS: o.admissionTtlS })
      : undefined;
    product = await api.createProduct({
      sku: `LT-${runId}`,
      name: `Load test ${runId}`,
      priceCents: 100,
      stock: o.stock,
      perUserLimit: o.perUserLimit,
      ...(waitingRoom ? { waitingRoom } : {}),
    });
    start = { stock: product.stock, orders: [] };
  } else {
    const snapshot = await readSnapshot(api, o.productId as string);
    product = snapshot.product;
    start = { stock: snapshot.stock, orders: snapshot.orders };
  }
  if (o.waitingRoom && !product.waitingRoom)
    throw new Error(`product ${product.id} has no waiting room: --waiting-room needs one (create it with --stock)`);

  const userPrefix = `lt-${runId}-`;
  const users = Array.from({ length: o.users }, (_, n) => ({
    id: `${userPrefix}${n}`,
    token: mintToken(o.tokenSecret, `${userPrefix}${n}`, 'user', undefined, claims),
  }));
  const admissionBefore = await readAdmission(urls);
  const startedAt = Date.now();
  const recorder = new Recorder(startedAt);
  const history =
    o.historyFile || o.check
      ? new HistoryLog('npm run loadtest', [
          {
            productId: product.id,
            initialStock: start.stock,
            perUserLimit: product.perUserLimit,
            preexistingOrderIds: start.orders.map((x) => x.id),
            ...(o.paymentTtlS !== undefined ? { paymentTtlS: o.paymentTtlS } : {}),
          },
        ])
      : undefined;
  const ticker = o.onProgress
    ? setInterval(() => o.onProgress?.(recorder.progress(Date.now())), o.progressEveryMs ?? 1000)
    : undefined;
  let traces: BuyerTrace[] | undefined;
  const stopReading = new AbortController();
  const readerTransport = new HttpTransport(1, o.requestTimeoutMs);
  const reading = o.readEveryMs
    ? readStockUntil(readerTransport, urls, product.id, o.readEveryMs, stopReading.signal, history)
    : undefined;
  try {
    if (o.waitingRoom)
      traces = await driveWaitingRoom({
        ...o,
        durationS: o.durationS as number,
        urls,
        productId: product.id,
        users,
        recorder,
        runId,
        history,
      });
    else await drive({ ...o, urls, productId: product.id, users, recorder, runId, history });
  } finally {
    if (ticker) clearInterval(ticker);
    stopReading.abort();
    await reading;
    readerTransport.close();
  }
  const finishedAt = Date.now();
  o.onProgress?.(recorder.progress(finishedAt));
  const admissionAfter = admissionBefore && (await readAdmission(urls));

  const unresolved = Object.entries(recorder.attemptOutcomes)
    .filter(([key]) => /^(error|503|429)\b|^202 PENDING/.test(key))
    .reduce((sum, [, count]) => sum + count, 0);
  let invariants;
  let end;
  for (let i = 0; ; i++) {
    end = await readSnapshot(api, product.id);
    invariants = checkInvariants({
      start,
      end,
      perUserLimit: product.perUserLimit,
      userPrefix,
      createdOrderIds: recorder.createdOrderIds,
      unresolvedAttempts: unresolved,
      attempts: recorder.attempts,
      retries: recorder.retries,
      users: o.users,
      quantity: o.quantity,
    });
    if (invariants.every((r) => r.ok || r.severity === 'warning') || i + 1 >= AUDIT_SETTLE_TRIES) break;
    await sleep(1000);
  }

  const elapsedS = (finishedAt - startedAt) / 1000;
  const result: LoadTestResult = {
    runId,
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: new Date(finishedAt).toISOString(),
    urls,
    product: {
      id: product.id,
      stock: end.stock,
      perUserLimit: product.perUserLimit,
      createdByRun: o.stock !== undefined,
      initialStock: start.stock,
      finalStock: end.stock,
    },
    config: {
      users: o.users,
      connections: o.connections,
      durationS: o.durationS,
      requests: o.requests,
      quantity: o.quantity,
      maxRetries: o.maxRetries,
      ...(o.waitingRoom ? { waitingRoom: true } : {}),
    },
    elapsedS,
    attempts: recorder.attempts,
    requests: recorder.requests,
    retries: recorder.retries,
    purchases: recorder.createdOrderIds.size,
    purchasesPerSecond: recorder.purchasesPerSecond(elapsedS),
    sellOut: sellOutOf(recorder),
    requestsPerSecond: perSecond(recorder.requests, elapsedS),
    byStatus: recorder.byStatus,
    byCode: recorder.byCode,
    attemptOutcomes: recorder.attemptOutcomes,
    errors: recorder.errors,
    latency: summarizeLatency(recorder.latencies),
    histogram: latencyHistogram(recorder.latencies),
    timeline: recorder.timeline(),
    admission: admissionBefore && admissionAfter ? admissionDelta(admissionBefore, admissionAfter) : undefined,
    invariants,
    ok: invariants.every((r) => r.ok || r.severity === 'warning'),
  };
  if (traces) {
    result.waitingRoom = await summarizeWaitingRoom(api, product, traces, startedAt);
    result.invariants.push(...waitingRoomInvariants(result.waitingRoom));
    result.ok = result.invariants.every((r) => r.ok || r.severity === 'warning');
  }
  if (history) {
    if (product.waitingRoom) {
      const saleStartsAtMs = product.saleStartsAt ? Date.parse(product.saleStartsAt) : null;
      history.meta.products[0].waitingRoom = {
        saleStartsAtMs,
        seed: saleStartsAtMs !== null ? (await api.queueSummary(product.id)).seed : null,
      };
    }
    const finalReadAtMs = Date.now();
    if (o.check) {
      const source = o.databaseUrl ? { databaseUrl: o.databaseUrl } : { url: urls[0], tokenSecret: o.tokenSecret };
      result.historyCheck = checkHistory(history.meta, history.ops, await readFinalOrders([product.id], source), {
        finalReadAtMs,
        require: o.requireRules,
      });
      result.ok &&= result.historyCheck.ok;
    }
    result.historyPath = o.historyFile ?? join(o.reportDir ?? 'reports', `history-${runId}.jsonl`);
    history.save(result.historyPath);
  }
  if (o.reportDir !== null) result.reportPaths = writeReport(result, o.reportDir);
  return result;
}

/** The sale's own pace: orders created by the first SOLD_OUT, over the time it took to come. */
function sellOutOf(recorder: Recorder): LoadTestResult['sellOut'] {
  if (recorder.firstSoldOutAt === undefined) return undefined;
  const afterS = Math.max(0.001, (recorder.firstSoldOutAt - recorder.startedAt) / 1000);
  return { afterS, orders: recorder.createdBySoldOut, perSecond: recorder.createdBySoldOut / afterS };
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
