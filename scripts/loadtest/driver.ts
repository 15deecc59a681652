/*
 * The load generator: C workers, each with one attempt in flight, over keep-alive connections
 * (at most C per URL).
 *
 * Why not autocannon: its client writes the next request on a connection synchronously as soon as
 * a response is parsed (lib/httpClient.js, kOnMessageComplete → _doRequest), so a connection
 * cannot wait out a Retry-After before re-sending an attempt's Idempotency-Key; retries would be
 * sent early or interleaved with fresh attempts, `amount` would count retries against the attempt
 * budget, and retries still pending at the end would be dropped, which breaks the "clients that
 * retry sell the whole stock" check.
 *
 * Why Node's http client rather than fetch (undici; the `undici` package itself, whose
 * `request()` is the fast path, is not a dependency): measured on this 2-core machine against a
 * trivial local server, 20 connections, 3,000 POSTs, CPU per request: fetch ~1.1 ms, node:http
 * with a keep-alive Agent ~0.32 ms, autocannon ~0.16 ms. The generator shares the cores with the
 * API instances it is measuring, so fetch's overhead would have been taken from the server.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PurchaseRecord } from '../history/format';
import { HistoryLog } from '../history/writer';
import { HttpTransport, TransportError } from './http-transport';
import { Recorder, RequestSample } from './recorder';
import { isRetryableStatus, parseRetryAfter, retryDelayMs } from './retry-policy';

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
  history?: HistoryLog;
}

export interface Response {
  sample: RequestSample;
  orderId?: string;
  retryAfterMs?: number;
  /** Client clock (ms since the epoch) when the request was sent and its answer (or failure) came. */
  invokeMs: number;
  completeMs: number;
  purchaseId?: string;
}

export async function drive(options: DriveOptions): Promise<void> {
  const deadline = options.durationS !== undefined ? options.recorder.startedAt + options.durationS * 1000 : Infinity;
  let next = 0;
  const transport = new HttpTransport(options.connections, options.requestTimeoutMs);
  const claim = (): number => {
    if (options.requests !== undefined && next >= options.requests) return -1;
    if (Date.now() >= deadline) return -1;
    return next++;
  };
  const worker = async (): Promise<void> => {
    for (let n = claim(); n >= 0; n = claim()) await attempt(options, transport, n, deadline);
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, worker));
  } finally {
    transport.close();
  }
}

/** One logical purchase: one Idempotency-Key, re-sent on 503/429/transport errors. */
async function attempt(options: DriveOptions, transport: HttpTransport, n: number, deadline: number): Promise<void> {
  const { recorder, urls } = options;
  const user = options.users[n % options.users.length];
  const key = `lt-${options.runId}-${n}`;
  const body = JSON.stringify({ quantity: options.quantity });
  recorder.attempts++;
  for (let retry = 0; ; retry++) {
    // Each retry moves to the next instance, as a client behind a load balancer would.
    const url = urls[(n + retry) % urls.length];
    const response = await purchase(transport, url, options.productId, user.token, key, body);
    recorder.record(response.sample);
    options.history?.add(purchaseRecord(response, { process: `w${n % options.connections}`, productId: options.productId, userId: user.id, quantity: options.quantity, key }));
    if (attemptIsOver(recorder, response, user.id, retry >= options.maxRetries || Date.now() >= deadline)) return;
    recorder.retries++;
    await sleep(retryDelayMs(response.retryAfterMs, retry, options.maxRetryDelayMs));
  }
}

/** A purchase answer as a history record (docs/LOADTEST.md). */
export function purchaseRecord(response: Response, request: { process: string; productId: string; userId: string; quantity: number; key: string }): PurchaseRecord {
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
export async function purchase(transport: HttpTransport, url: string, productId: string, token: string, key: string, body: string, extraHeaders: Record<string, string> = {}): Promise<Response> {
  const started = performance.now();
  const invokeMs = Date.now();
  try {
    const res = await transport.post(
      `${url}/products/${encodeURIComponent(productId)}/purchase`,
      { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key, ...extraHeaders },
      body,
    );
    const latencyMs = performance.now() - started;
    const completeMs = Date.now();
    const parsed = parseJson(res.body);
    const sample: RequestSample = { status: res.status, latencyMs, finishedAt: completeMs };
    const header = res.headers['purchase-id'];
    const purchaseId = (Array.isArray(header) ? header[0] : header) ?? (typeof parsed?.purchaseId === 'string' ? parsed.purchaseId : undefined);
    if (res.status === 201) {
      const orderId = typeof parsed?.id === 'string' || typeof parsed?.id === 'number' ? String(parsed.id) : undefined;
      if (!orderId) sample.code = 'NO_ORDER_ID';
      return { sample, orderId, invokeMs, completeMs, purchaseId };
    }
    sample.code = typeof parsed?.code === 'string' ? parsed.code : undefined;
    const retryAfter = res.headers['retry-after'];
    return { sample, retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter), invokeMs, completeMs, purchaseId };
  } catch (error) {
    const kind = error instanceof TransportError ? error.code : 'UNKNOWN';
    const completeMs = Date.now();
    return { sample: { status: 0, error: kind, latencyMs: performance.now() - started, finishedAt: completeMs }, invokeMs, completeMs };
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
