import { ApiResponse, eventually, httpSender, retryAfterMs, retryPauseMs, sleep } from '../../support/api-client';
import { auth } from '../../support/tokens';
import { HistoryLog } from '../../../scripts/history/writer';
import { answerFields } from './history';

/** Whether a value is an HTTP answer; `instanceof Error` is unreliable across jest's realms (fetch errors come from Node's). */
export const isAnswer = (res: ApiResponse | Error): res is ApiResponse => typeof (res as ApiResponse).status === 'number' && typeof (res as ApiResponse).raw === 'string';

/** One answer (or transport failure) as the chaos suite classifies it: `201`, `409 SOLD_OUT`, `transport TIMEOUT`... */
export function outcomeOf(res: ApiResponse | Error): string {
  if (!isAnswer(res)) return `transport ${res.name === 'TimeoutError' ? 'TIMEOUT' : ((res.cause as { code?: string } | undefined)?.code ?? res.name)}`;
  if (res.status < 400) return String(res.status);
  return `${res.status} ${typeof res.body?.code === 'string' ? res.body.code : 'NON_CONTRACT_BODY'}`;
}

/** Whether an error answer has exactly the contract's shape (and 503/429 carry Retry-After). */
export function contractViolation(res: ApiResponse): string | undefined {
  if (res.status < 400) return undefined;
  const body = res.body as Record<string, unknown> | undefined;
  const keys = body && typeof body === 'object' ? Object.keys(body).sort().join(',') : '';
  if (res.status >= 500 && res.status !== 503) return `${res.status}: ${res.raw.slice(0, 200)}`;
  if (keys !== 'code,message,statusCode' || body!.statusCode !== res.status || !/^[A-Z_]+$/.test(String(body!.code))) return `not a contract error: ${res.status} ${res.raw.slice(0, 200)}`;
  if ((res.status === 503 || res.status === 429) && !/^\d+$/.test(res.headers['retry-after'] ?? '')) return `${res.status} ${String(body!.code)} without Retry-After`;
  return undefined;
}

/** Counts what clients saw, overall and per named phase of a scenario, and keeps every operation as a history. */
export class Recorder {
  readonly started = Date.now();
  /** Every purchase (and whatever else a scenario records) for the history checker. */
  readonly history = new HistoryLog('chaos suite');
  requests = 0;
  readonly outcomes: Record<string, number> = {};
  readonly phases: Record<string, { requests: number; outcomes: Record<string, number>; maxLatencyMs: number }> = {};
  readonly violations: string[] = [];
  maxLatencyMs = 0;
  /** Milliseconds since start of each 201, to measure recovery. */
  readonly createdAt: number[] = [];
  /** Milliseconds since start of each 503 DEPENDENCY_UNAVAILABLE, to judge a state by when it was answered. */
  readonly unavailableAt: number[] = [];
  private phase = 'before the fault';

  /**
   * The ground truth of a product the test created: the stock and limit the test sent (never what
   * the app answered), for the checker and the SQL checks.
   */
  track(productId: string, sent: { stock: number; perUserLimit: number }): void {
    this.history.addProduct({ productId, initialStock: sent.stock, perUserLimit: sent.perUserLimit });
  }

  setPhase(name: string): void {
    this.phase = name;
  }

  now(): number {
    return Date.now() - this.started;
  }

  get currentPhase(): string {
    return this.phase;
  }

  /** Counts an answer under `phase`: by default the phase its request started in. */
  record(res: ApiResponse | Error, latencyMs: number, phaseName = this.phase): string {
    const outcome = outcomeOf(res);
    this.requests++;
    this.outcomes[outcome] = (this.outcomes[outcome] ?? 0) + 1;
    const phase = (this.phases[phaseName] ??= { requests: 0, outcomes: {}, maxLatencyMs: 0 });
    phase.requests++;
    phase.outcomes[outcome] = (phase.outcomes[outcome] ?? 0) + 1;
    phase.maxLatencyMs = Math.max(phase.maxLatencyMs, Math.round(latencyMs));
    this.maxLatencyMs = Math.max(this.maxLatencyMs, Math.round(latencyMs));
    if (isAnswer(res)) {
      const violation = contractViolation(res);
      if (violation && this.violations.length < 20) this.violations.push(violation);
      if (res.status === 201) this.createdAt.push(this.now());
      if (outcome === '503 DEPENDENCY_UNAVAILABLE') this.unavailableAt.push(this.now());
    }
    return outcome;
  }

  /** First 201 at or after `sinceMs` (recorder time), as a delay; undefined if none. */
  firstCreatedAfter(sinceMs: number): number | undefined {
    const t = this.createdAt.find((c) => c >= sinceMs);
    return t === undefined ? undefined : t - sinceMs;
  }

  count(prefix: string): number {
    return Object.entries(this.outcomes).filter(([k]) => k.startsWith(prefix)).reduce((sum, [, n]) => sum + n, 0);
  }
}

export interface AttemptResult {
  user: string;
  key: string;
  /** The outcome of the last answer; `gave-up` after maxAttempts of retryable answers. */
  final: string;
  /** The outcome of the last answer, even when the client gave up. */
  last: string;
  orderId?: string;
  /** Every order id a 201 answered with (all equal when idempotency holds). */
  orderIds: string[];
  attempts: number;
}

export interface BuyOptions {
  urls: string[];
  productId: string;
  rec: Recorder;
  quantity?: number;
  maxAttempts?: number;
  timeoutMs?: number;
  retryCapMs?: number;
}

let rr = 0;

/**
 * One purchase as a careful client makes it: its own Idempotency-Key, retried on 503, 429 and
 * transport errors (never before Retry-After) against the next instance with the same key.
 */
export async function buyOnce(user: string, key: string, o: BuyOptions): Promise<AttemptResult> {
  const result: AttemptResult = { user, key, final: 'gave-up', last: 'none', orderIds: [], attempts: 0 };
  const max = o.maxAttempts ?? 30;
  for (let attempt = 1; attempt <= max; attempt++) {
    const send = httpSender(o.urls[rr++ % o.urls.length], o.timeoutMs ?? 15_000);
    const t0 = performance.now();
    const invokeMs = Date.now();
    const phase = o.rec.currentPhase;
    let res: ApiResponse | Error;
    try {
      res = await send({ method: 'POST', url: `/products/${o.productId}/purchase`, headers: { ...auth(user), 'idempotency-key': key }, payload: { quantity: o.quantity ?? 1 } });
    } catch (error) {
      res = error as Error;
    }
    result.attempts = attempt;
    const outcome = o.rec.record(res, performance.now() - t0, phase);
    const purchaseId = isAnswer(res) ? (res.headers['purchase-id'] ?? (typeof res.body?.purchaseId === 'string' ? res.body.purchaseId : undefined)) : undefined;
    o.rec.history.add({
      op: 'purchase',
      process: user,
      invokeMs,
      completeMs: Date.now(),
      productId: o.productId,
      userId: user,
      quantity: o.quantity ?? 1,
      key,
      ...answerFields(res),
      ...(purchaseId ? { purchaseId } : {}),
      ...(isAnswer(res) && res.status === 201 ? { orderId: String(res.body.id) } : {}),
    });
    result.last = outcome;
    if (isAnswer(res) && res.status === 201) result.orderIds.push(String(res.body.id));
    // 202 PURCHASE_PENDING: the same key again answers the outcome once the instance knows it.
    const retryable = !isAnswer(res) || res.status === 503 || res.status === 429 || res.status === 202;
    if (!retryable) {
      result.final = outcome;
      result.orderId = result.orderIds[result.orderIds.length - 1];
      return result;
    }
    // Never before Retry-After (a client retrying at half the hint kept restarting the wait until
    // its attempts ran out); the cap bounds only the jitter and the pause after an answer without one.
    const capMs = o.retryCapMs ?? 1000;
    const hintedMs = isAnswer(res) ? retryAfterMs(res) : undefined;
    await sleep(hintedMs ? retryPauseMs(hintedMs, capMs) : Math.min(capMs, 200) * (0.5 + Math.random() * 0.5));
  }
  return result;
}

export interface CrowdOptions extends BuyOptions {
  users: string[];
  concurrency: number;
  /** Checked before each new attempt; true stops the crowd. */
  stop?: () => boolean;
  /** Pause between one worker's attempts, to keep the load modest. */
  thinkMs?: number;
  /** Purchases each user makes one after another, each with its own key (repeat buyers); default 1. */
  purchasesPerUser?: number;
}

/** Users buying one unit per purchase with `concurrency` workers; resolves with every attempt's result. */
export async function runCrowd(o: CrowdOptions): Promise<AttemptResult[]> {
  const queue = [...o.users];
  const results: AttemptResult[] = [];
  const worker = async () => {
    for (let user = queue.shift(); user !== undefined && !o.stop?.(); user = queue.shift()) {
      for (let n = 0; n < (o.purchasesPerUser ?? 1) && !o.stop?.(); n++) {
        results.push(await buyOnce(user, n === 0 ? `${user}-key` : `${user}-key${n}`, o));
        if (o.thinkMs) await sleep(o.thinkMs);
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return results;
}

export const users = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/**
 * Waits until a 201 answered at or after `sinceMs` (recorder time) and returns how long after
 * `sinceMs` it came; undefined when none came within `timeoutMs` (the caller's verdict says so).
 */
export async function firstSaleAfter(rec: Recorder, sinceMs: number, timeoutMs: number): Promise<number | undefined> {
  const found = await eventually(
    async () => {
      const ms = rec.firstCreatedAfter(sinceMs);
      return ms === undefined ? undefined : { ms };
    },
    timeoutMs,
    50,
    'a sale',
  ).catch(() => undefined);
  return found?.ms;
}

/** Waits (at most `timeoutMs`) until the crowd has sold `count` units: the sale is under way. */
export function salesUnderWay(rec: Recorder, count: number, timeoutMs = 30_000): Promise<boolean> {
  return eventually(async () => rec.createdAt.length >= count, timeoutMs, 50, `${count} sales`);
}
