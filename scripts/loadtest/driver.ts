/*
 * The load generator: Node's built-in fetch (undici, keep-alive pool per origin) driven by C
 * workers, so at most C requests are in flight. Why not autocannon: its client writes the next
 * request on a connection synchronously as soon as a response is parsed (httpClient.js,
 * kOnMessageComplete → _doRequest), so a connection cannot wait out a Retry-After before re-sending
 * the same Idempotency-Key; retries would have to be interleaved with fresh attempts, `amount`
 * would count retries against the attempt budget, and retries pending at the end would be dropped,
 * which breaks the "clients that retry sell the whole stock" check. The purchase route is bound
 * by locks and Postgres at a few thousand requests/s at most, well within what fetch sustains
 * (measured against a trivial local server: see docs/LOADTEST.md).
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
}

interface Response {
  sample: RequestSample;
  orderId?: string;
  retryAfterMs?: number;
}

export async function drive(options: DriveOptions): Promise<void> {
  const deadline = options.durationS !== undefined ? options.recorder.startedAt + options.durationS * 1000 : Infinity;
  let next = 0;
  const claim = (): number => {
    if (options.requests !== undefined && next >= options.requests) return -1;
    if (Date.now() >= deadline) return -1;
    return next++;
  };
  const worker = async (): Promise<void> => {
    for (let n = claim(); n >= 0; n = claim()) await attempt(options, n, deadline);
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
}

/** One logical purchase: one Idempotency-Key, re-sent on 503/429/transport errors. */
async function attempt(options: DriveOptions, n: number, deadline: number): Promise<void> {
  const { recorder, urls } = options;
  const user = options.users[n % options.users.length];
  const key = `lt-${options.runId}-${n}`;
  const body = JSON.stringify({ quantity: options.quantity });
  recorder.attempts++;
  for (let retry = 0; ; retry++) {
    // Each retry moves to the next instance, as a client behind a load balancer would.
    const url = urls[(n + retry) % urls.length];
    const response = await purchase(url, options.productId, user.token, key, body, options.requestTimeoutMs);
    recorder.record(response.sample);
    const retryable = response.sample.error !== undefined || isRetryableStatus(response.sample.status);
    if (!retryable || retry >= options.maxRetries || Date.now() >= deadline) {
      recorder.recordAttemptOutcome(response.sample);
      if (response.orderId) recorder.recordCreated(response.orderId, user.id);
      return;
    }
    recorder.retries++;
    await sleep(retryDelayMs(response.retryAfterMs, retry, options.maxRetryDelayMs));
  }
}

async function purchase(url: string, productId: string, token: string, key: string, body: string, timeoutMs: number): Promise<Response> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}/products/${encodeURIComponent(productId)}/purchase`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const latencyMs = performance.now() - started;
    const parsed = parseJson(text);
    const sample: RequestSample = { status: res.status, latencyMs, finishedAt: Date.now() };
    if (res.status === 201) {
      const orderId = typeof parsed?.id === 'string' || typeof parsed?.id === 'number' ? String(parsed.id) : undefined;
      if (!orderId) sample.code = 'NO_ORDER_ID';
      return { sample, orderId };
    }
    sample.code = typeof parsed?.code === 'string' ? parsed.code : undefined;
    return { sample, retryAfterMs: parseRetryAfter(res.headers.get('retry-after')) };
  } catch (error) {
    return { sample: { status: 0, error: transportErrorKind(error), latencyMs: performance.now() - started, finishedAt: Date.now() } };
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

/** ECONNREFUSED, ECONNRESET, TIMEOUT...: fetch wraps the socket error in `cause`. */
export function transportErrorKind(error: unknown): string {
  const err = error as { name?: string; code?: string; cause?: { code?: string; name?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return 'TIMEOUT';
  return err?.cause?.code ?? err?.code ?? err?.cause?.name ?? err?.name ?? 'UNKNOWN';
}
