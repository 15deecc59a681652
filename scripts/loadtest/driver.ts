/*
 * The load generator: C workers, each with one attempt in flight, over keep-alive connections
 * (at most C per URL). `drive` runs them on the thread it is called on; drive-workers.ts spreads a
 * run over several threads, each running `drive` with its share of the connections.
 *
 * Why not autocannon: its client writes the next request on a connection synchronously as soon as
 * a response is parsed (lib/httpClient.js, kOnMessageComplete → _doRequest), so a connection
 * cannot wait out a Retry-After before re-sending an attempt's Idempotency-Key; retries would be
 * sent early or interleaved with fresh attempts, `amount` would count retries against the attempt
 * budget, and retries still pending at the end would be dropped, which breaks the "clients that
 * retry sell the whole stock" check.
 *
 * Why SocketTransport rather than node:http or undici: measured on this 2-core machine with
 * scripts/loadtest/client-cost.ts (purchase-shaped POSTs, 64 connections, client CPU only), a
 * request cost 43 µs of CPU through node:http's keep-alive Agent, 27 µs through undici's
 * Pool.request, 21 µs through undici's Client.dispatch and 13 µs through SocketTransport
 * (docs/LOADTEST.md, "Why this load generator"). The generator shares the cores with the servers
 * it measures, so its overhead is taken from them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PurchaseRecord } from '../history/format';
import { HistoryLog } from '../history/writer';
import { cancelOrder, followPending, payOrder } from './buyer-actions';
import { answerHeader, Transport, TransportError } from './http-transport';
import type { PurchaseHistory } from './purchase-history';
import { Recorder, RequestSample } from './recorder';
import { isEarlyRetryRefusal, isRetryableStatus, parseRetryAfter, retryDelayMs } from './retry-policy';
import { SocketTransport } from './socket-transport';
import { increment } from './stats';
import { AttemptCounter } from './worker-split';

export interface DriveOptions {
  urls: string[];
  productId: string;
  quantity: number;
  users: { id: string; token: string }[];
  connections: number;
  durationS?: number;
  requests?: number;
  maxRetries: number;
  maxRetryDelayMs: number;
  requestTimeoutMs: number;
  runId: string;
  recorder: Recorder;
  /** Every request as a history record (`--history`), for the checker. */
  history?: HistoryLog | PurchaseHistory;
  /** The buyer of every Nth order pays it at once (`POST /orders/:id/pay`). */
  payEvery?: number;
  /** The buyer of every Nth order (counted from the second) cancels it at once. */
  cancelEvery?: number;
  /** How this thread's senders are named in the history (`w3`, or `w1.3` on worker 1). Default "w". */
  senderPrefix?: string;
}

export interface Response {
  sample: RequestSample;
  orderId?: string;
  retryAfterMs?: number;
  /** Client clock (ms since the epoch) when the request was sent and its answer (or failure) came. */
  invokeMs: number;
  completeMs: number;
  purchaseId?: string;
  /** A 202's Location. */
  location?: string;
  /** A 429 the API says came before the Retry-After it had given (docs/API.md): nothing was done. */
  early?: boolean;
}

/** At most this many polls of one 202's Location. */
const MAX_POLLS = 20;

/**
 * Runs attempts until `requests` have been started or `durationS` is up. `counter` hands out the
 * attempt numbers: one of its own, or one shared with the run's other worker threads.
 */
export async function drive(
  options: DriveOptions,
  counter = new AttemptCounter(options.requests ?? Infinity),
): Promise<void> {
  const deadline = options.durationS !== undefined ? options.recorder.startedAt + options.durationS * 1000 : Infinity;
  const transport = new SocketTransport(options.connections, options.requestTimeoutMs);
  const claim = (): number => (Date.now() >= deadline ? -1 : counter.claim());
  const purchases = purchaseTargets(options);
  const worker = async (): Promise<void> => {
    for (let n = claim(); n >= 0; n = claim()) await attempt(options, purchases, transport, n, deadline);
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, worker));
  } finally {
    transport.close();
  }
}

/** What every purchase of a run sends alike: each URL's purchase address, and the body. */
interface PurchaseTargets {
  urls: string[];
  body: string;
}

function purchaseTargets(options: DriveOptions): PurchaseTargets {
  return {
    urls: options.urls.map((url) => purchaseUrl(url, options.productId)),
    body: JSON.stringify({ quantity: options.quantity }),
  };
}

const purchaseUrl = (url: string, productId: string) => `${url}/products/${encodeURIComponent(productId)}/purchase`;

/** One logical purchase: one Idempotency-Key, re-sent on 503/429/transport errors; a 202's outcome asked for at its Location. */
async function attempt(
  options: DriveOptions,
  purchases: PurchaseTargets,
  transport: Transport,
  n: number,
  deadline: number,
): Promise<void> {
  const { recorder, urls } = options;
  const user = options.users[n % options.users.length];
  const key = `lt-${options.runId}-${n}`;
  recorder.attempts++;
  for (let retry = 0; ; retry++) {
    // Each retry moves to the next instance, as a client behind a load balancer would.
    const at = (n + retry) % urls.length;
    const url = urls[at];
    const response = await send(transport, purchases.urls[at], user.token, key, purchases.body);
    recorder.record(response.sample);
    recordPurchase(options, response, n % options.connections, user.id, key);
    if (response.sample.status === 202) {
      const orderId = await settlePending(options, transport, url, user, response, deadline);
      if (orderId) await afterCreated(options, transport, url, user, orderId);
      return;
    }
    if (attemptIsOver(recorder, response, user.id, retry >= options.maxRetries || Date.now() >= deadline)) {
      if (response.orderId) await afterCreated(options, transport, url, user, response.orderId);
      return;
    }
    recorder.retries++;
    await sleep(retryDelayMs(response.retryAfterMs, retry, options.maxRetryDelayMs));
  }
}

/**
 * A 202 PURCHASE_PENDING: the outcome is asked for at its Location (never bought again under the
 * same key), and the attempt ends with what that says: `202 CREATED`, `202 REFUSED <code>`, or
 * `202 PENDING` when it never said.
 */
export async function settlePending(
  options: Pick<DriveOptions, 'recorder' | 'history' | 'maxRetryDelayMs' | 'productId'>,
  transport: Transport,
  url: string,
  user: { id: string; token: string },
  response: Response,
  deadline: number,
): Promise<string | undefined> {
  const outcome = await followPending(
    {
      transport,
      url,
      token: user.token,
      userId: user.id,
      productId: options.productId,
      purchaseId: response.purchaseId ?? '',
      location: response.location,
      maxPolls: MAX_POLLS,
      maxRetryDelayMs: options.maxRetryDelayMs,
      deadline: Math.max(deadline, Date.now() + 5000),
      history: options.history,
    },
    response.retryAfterMs,
  );
  increment(options.recorder.attemptOutcomes, `202 ${outcome.state}${outcome.code ? ` ${outcome.code}` : ''}`);
  if (outcome.orderId) options.recorder.recordCreated(outcome.orderId, user.id);
  return outcome.orderId;
}

/** The buyer of every `payEvery`th order pays it, of every `cancelEvery`th cancels it. */
export async function afterCreated(
  options: Pick<DriveOptions, 'recorder' | 'history' | 'payEvery' | 'cancelEvery'>,
  transport: Transport,
  url: string,
  user: { id: string; token: string },
  orderId: string,
): Promise<void> {
  const nth = options.recorder.createdOrderIds.size;
  if (options.payEvery && nth % options.payEvery === 0)
    await payOrder(transport, url, user.token, user.id, orderId, options.history);
  else if (options.cancelEvery && (nth + 1) % options.cancelEvery === 0)
    await cancelOrder(transport, url, user.token, user.id, orderId, options.history);
}

/**
 * One purchase sent under `key`, its answer counted by the recorder and added to the history as
 * sent by `sender` (the history's process); `extraHeaders` carries the waiting room's Admission.
 */
export async function sendRecordedPurchase(
  options: Pick<DriveOptions, 'recorder' | 'history' | 'productId' | 'quantity'>,
  transport: Transport,
  url: string,
  user: { id: string; token: string },
  key: string,
  sender: string,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  const { productId, quantity } = options;
  const body = JSON.stringify({ quantity });
  const response = await purchase(transport, url, productId, user.token, key, body, extraHeaders);
  options.recorder.record(response.sample);
  options.history?.add(purchaseRecord(response, { process: sender, productId, userId: user.id, quantity, key }));
  return response;
}

/** A purchase of the run's own load in its history: kept compact when the history can hold it so. */
function recordPurchase(options: DriveOptions, response: Response, connection: number, userId: string, key: string) {
  const { history, productId, quantity } = options;
  if (!history) return;
  if ('addPurchase' in history && history.productId === productId && history.quantity === quantity)
    history.addPurchase(response, connection, userId, key);
  else {
    const process = `${options.senderPrefix ?? 'w'}${connection}`;
    history.add(purchaseRecord(response, { process, productId, userId, quantity, key }));
  }
}

/** A purchase answer as a history record (docs/LOADTEST.md). */
export function purchaseRecord(
  response: Response,
  request: { process: string; productId: string; userId: string; quantity: number; key: string },
): PurchaseRecord {
  return {
    op: 'purchase',
    process: request.process,
    invokeMs: response.invokeMs,
    completeMs: response.completeMs,
    productId: request.productId,
    userId: request.userId,
    quantity: request.quantity,
    key: request.key,
    ...(response.sample.error !== undefined ? { error: response.sample.error } : { status: response.sample.status }),
    ...(response.sample.code !== undefined ? { code: response.sample.code } : {}),
    ...(response.purchaseId !== undefined ? { purchaseId: response.purchaseId } : {}),
    ...(response.orderId !== undefined ? { orderId: response.orderId } : {}),
  };
}

/**
 * Whether an attempt ends with this answer: a definite one, or a retryable one with the retry
 * budget (`outOfRetries`) spent. An attempt that ends is counted by its outcome, and its order.
 */
export function attemptIsOver(recorder: Recorder, response: Response, userId: string, outOfRetries: boolean): boolean {
  const retryable = response.sample.error !== undefined || isRetryableStatus(response.sample.status);
  if (retryable && !outOfRetries) return false;
  recorder.recordAttemptOutcome(response.sample);
  if (response.orderId) recorder.recordCreated(response.orderId, userId);
  return true;
}

/** One POST of a purchase; `extraHeaders` carries the waiting room's Admission. */
export async function purchase(
  transport: Transport,
  url: string,
  productId: string,
  token: string,
  key: string,
  body: string,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  return send(transport, purchaseUrl(url, productId), token, key, body, extraHeaders);
}

/** One POST of a purchase to its address. */
async function send(
  transport: Transport,
  target: string,
  token: string,
  key: string,
  body: string,
  extraHeaders?: Record<string, string>,
): Promise<Response> {
  const started = performance.now();
  const invokeMs = Date.now();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key };
  try {
    const res = await transport.post(target, extraHeaders ? { ...headers, ...extraHeaders } : headers, body);
    const latencyMs = performance.now() - started;
    const completeMs = Date.now();
    const parsed = parseJson(res.body);
    const sample: RequestSample = { status: res.status, latencyMs, finishedAt: completeMs };
    const purchaseId =
      answerHeader(res, 'purchase-id') ?? (typeof parsed?.purchaseId === 'string' ? parsed.purchaseId : undefined);
    if (res.status === 201) {
      const orderId = typeof parsed?.id === 'string' || typeof parsed?.id === 'number' ? String(parsed.id) : undefined;
      if (!orderId) sample.code = 'NO_ORDER_ID';
      return { sample, orderId, invokeMs, completeMs, purchaseId };
    }
    sample.code = typeof parsed?.code === 'string' ? parsed.code : undefined;
    const location = answerHeader(res, 'location');
    return {
      sample,
      retryAfterMs: parseRetryAfter(answerHeader(res, 'retry-after')),
      invokeMs,
      completeMs,
      purchaseId,
      location,
      ...(isEarlyRetryRefusal(res.status, parsed?.message) ? { early: true } : {}),
    };
  } catch (error) {
    const kind = error instanceof TransportError ? error.code : 'UNKNOWN';
    const completeMs = Date.now();
    return {
      sample: { status: 0, error: kind, latencyMs: performance.now() - started, finishedAt: completeMs },
      invokeMs,
      completeMs,
    };
  }
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
