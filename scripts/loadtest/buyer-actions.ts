import { setTimeout as sleep } from 'node:timers/promises';
import type { CancelRecord, OpRecord, PayRecord, PollRecord, ReadRecord } from '../history/format';
import type { HistoryLog } from '../history/writer';
import { HttpAnswer, parseBody, Transport, TransportError } from './http-transport';
import { parseRetryAfter, retryDelayMs } from './retry-policy';

/**
 * What a load-test buyer does besides buying, each request recorded in the history: follows a
 * 202's Location until the purchase's outcome is known, pays or cancels some of its orders, and
 * (one reader for the run) reads the product's stock.
 */

interface Sent {
  invokeMs: number;
  completeMs: number;
  answer?: HttpAnswer;
  error?: string;
  body: Record<string, unknown>;
}

async function send(call: () => Promise<HttpAnswer>): Promise<Sent> {
  const invokeMs = Date.now();
  try {
    const answer = await call();
    return { invokeMs, completeMs: Date.now(), answer, body: parseBody(answer.body) };
  } catch (error) {
    return {
      invokeMs,
      completeMs: Date.now(),
      error: error instanceof TransportError ? error.code : 'UNKNOWN',
      body: {},
    };
  }
}

/** The answer's status and contract code, or its transport error, as a history record carries them. */
function answered(sent: Sent): Partial<OpRecord> {
  if (sent.error !== undefined) return { error: sent.error };
  const code = typeof sent.body.code === 'string' ? sent.body.code : undefined;
  return { status: sent.answer?.status, ...(code !== undefined && sent.answer?.status !== 200 ? { code } : {}) };
}

export interface PendingOutcome {
  state: 'CREATED' | 'REFUSED' | 'PENDING';
  orderId?: string;
  code?: string;
  completeMs: number;
}

/**
 * GET the 202's Location (`/purchases/<id>`) until it answers CREATED or REFUSED, waiting each
 * answer's Retry-After (capped) in between, at most `maxPolls` times or until `deadline`.
 */
export async function followPending(
  o: {
    transport: Transport;
    url: string;
    token: string;
    userId: string;
    productId: string;
    purchaseId: string;
    location?: string;
    maxPolls: number;
    maxRetryDelayMs: number;
    deadline: number;
    history?: Pick<HistoryLog, 'add'>;
  },
  firstRetryAfterMs: number | undefined,
): Promise<PendingOutcome> {
  const path = o.location?.startsWith('/') ? o.location : `/purchases/${encodeURIComponent(o.purchaseId)}`;
  let wait = firstRetryAfterMs;
  let completeMs = Date.now();
  for (let n = 0; n < o.maxPolls; n++) {
    await sleep(retryDelayMs(wait, n, o.maxRetryDelayMs));
    const sent = await send(() => o.transport.get(`${o.url}${path}`, { authorization: `Bearer ${o.token}` }));
    completeMs = sent.completeMs;
    const state = sent.answer?.status === 200 && typeof sent.body.state === 'string' ? sent.body.state : undefined;
    const order = sent.body.order as { id?: unknown } | undefined;
    const orderId =
      state === 'CREATED' && order && (typeof order.id === 'string' || typeof order.id === 'number')
        ? String(order.id)
        : undefined;
    const code = typeof sent.body.code === 'string' ? sent.body.code : undefined;
    const record: PollRecord = {
      op: 'poll',
      invokeMs: sent.invokeMs,
      completeMs,
      purchaseId: o.purchaseId,
      userId: o.userId,
      productId: o.productId,
      ...(answered(sent) as object),
      ...(state ? { state: state as PollRecord['state'] } : {}),
      ...(orderId ? { orderId } : {}),
      ...(state === 'REFUSED' && code ? { code } : {}),
    };
    o.history?.add(record);
    if (state === 'CREATED' || state === 'REFUSED') return { state, orderId, code, completeMs };
    const header = sent.answer?.headers['retry-after'];
    wait = parseRetryAfter(Array.isArray(header) ? header[0] : header);
    if (Date.now() >= o.deadline) break;
  }
  return { state: 'PENDING', completeMs };
}

/** The buyer pays its order (`POST /orders/:id/pay`, the direct path). */
export async function payOrder(
  transport: Transport,
  url: string,
  token: string,
  userId: string,
  orderId: string,
  history?: Pick<HistoryLog, 'add'>,
): Promise<void> {
  const sent = await send(() =>
    transport.post(`${url}/orders/${encodeURIComponent(orderId)}/pay`, { authorization: `Bearer ${token}` }, ''),
  );
  const record: PayRecord = {
    op: 'pay',
    invokeMs: sent.invokeMs,
    completeMs: sent.completeMs,
    orderId,
    userId,
    ...(answered(sent) as object),
  };
  if (sent.answer?.status === 200 && typeof sent.body.status === 'string') record.orderStatus = sent.body.status;
  history?.add(record);
}

/** The buyer cancels its order (`POST /orders/:id/cancel`). */
export async function cancelOrder(
  transport: Transport,
  url: string,
  token: string,
  userId: string,
  orderId: string,
  history?: Pick<HistoryLog, 'add'>,
): Promise<void> {
  const sent = await send(() =>
    transport.post(`${url}/orders/${encodeURIComponent(orderId)}/cancel`, { authorization: `Bearer ${token}` }, ''),
  );
  const record: CancelRecord = {
    op: 'cancel',
    invokeMs: sent.invokeMs,
    completeMs: sent.completeMs,
    orderId,
    actor: 'user',
    userId,
    ...(answered(sent) as object),
  };
  if (sent.answer?.status === 200 && typeof sent.body.status === 'string') record.orderStatus = sent.body.status;
  history?.add(record);
}

/** Reads the product (`GET /products/:id`) every `everyMs` until `stop` is aborted, each read recorded. */
export async function readStockUntil(
  transport: Transport,
  urls: string[],
  productId: string,
  everyMs: number,
  stop: AbortSignal,
  history?: Pick<HistoryLog, 'add'>,
): Promise<number> {
  let reads = 0;
  while (!stop.aborted) {
    const sent = await send(() =>
      transport.get(`${urls[reads % urls.length]}/products/${encodeURIComponent(productId)}`, {}),
    );
    const record: ReadRecord = {
      op: 'read',
      invokeMs: sent.invokeMs,
      completeMs: sent.completeMs,
      productId,
      ...(answered(sent) as object),
    };
    if (sent.answer?.status === 200 && typeof sent.body.stock === 'number') record.stock = sent.body.stock;
    history?.add(record);
    reads++;
    await sleep(everyMs, undefined, { signal: stop }).catch(() => undefined);
  }
  return reads;
}
