/*
 * The waiting-room flow: every simulated buyer joins the product's queue, polls its ticket no
 * sooner than the `pollAfterMs` the server last said, and buys with its `Admission` once ADMITTED.
 * All buyers are in the queue at once (that is the point of a waiting room); the HTTP requests in
 * flight are still capped by `connections` sockets per URL.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { HistoryLog } from '../history/writer';
import { DriveOptions } from './driver';
import { GatedTransport } from './gated-transport';
import { HttpAnswer, HttpTransport, parseBody, TransportError } from './http-transport';
import { parseRetryAfter, retryDelayMs } from './retry-policy';
import { buyOnce } from './waiting-room-purchase';
import { BuyerTrace, QueueAnswer } from './waiting-room-trace';

/** Waits on refusals of queue requests (503, 429, 403 before the pre-queue opens) without a hint. */
const QUEUE_RETRY_CAP_MS = 5000;

export interface QueueDriveOptions extends Omit<DriveOptions, 'requests'> {
  durationS: number;
}

export async function driveWaitingRoom(options: QueueDriveOptions): Promise<BuyerTrace[]> {
  const deadline = options.recorder.startedAt + options.durationS * 1000;
  const transport = new GatedTransport(
    options.connections * options.urls.length,
    options.connections,
    options.requestTimeoutMs,
  );
  try {
    return await Promise.all(options.users.map((user, n) => buyer(options, transport, user, n, deadline)));
  } finally {
    transport.close();
  }
}

async function buyer(
  o: QueueDriveOptions,
  transport: HttpTransport,
  user: { id: string; token: string },
  n: number,
  deadline: number,
): Promise<BuyerTrace> {
  const trace: BuyerTrace = { userId: user.id, answers: [], final: 'TIMED_OUT' };
  const base = `/products/${encodeURIComponent(o.productId)}/queue`;
  const url = (k: number) => o.urls[(n + k) % o.urls.length];
  let ticket: string | undefined;
  let attempt = 0;
  for (let k = 0; Date.now() < deadline; k++) {
    const answer = ticket
      ? await queueCall(o, transport, 'queuePoll', `${url(k)}${base}/${encodeURIComponent(ticket)}`, user)
      : await queueCall(o, transport, 'queueJoin', `${url(k)}${base}`, user);
    trace.answers.push(answer);
    if (answer.status !== 200) {
      if (answer.code === 'SOLD_OUT') return settle(trace, 'SOLD_OUT', answer.completeMs);
      const retryable =
        answer.error !== undefined ||
        answer.status === 503 ||
        answer.status === 429 ||
        answer.code === 'SALE_NOT_ACTIVE';
      if (!retryable) return settle(trace, `${answer.status} ${answer.code ?? ''}`.trim(), answer.completeMs);
      await sleep(
        Math.min(retryDelayMs(answer.retryAfterMs ?? 1000, 0, QUEUE_RETRY_CAP_MS), Math.max(0, deadline - Date.now())),
      );
      continue;
    }
    ticket ??= answer.ticket;
    trace.ticketId ??= answer.ticketId;
    trace.joinCompleteMs ??= answer.completeMs;
    if (answer.state === 'WAITING') trace.lastWaitingInvokeMs = answer.invokeMs;
    else if (answer.state === 'ADMITTED' && answer.admission) {
      trace.admittedAtMs ??= answer.completeMs;
      const bought = await buyOnce(o, transport, user, answer.admission, `lt-${o.runId}-${n}-${attempt++}`, deadline);
      trace.purchaseAnsweredAtMs = bought.completeMs;
      trace.purchaseOutcome = bought.outcome;
      if (bought.outcome === '201') return settle(trace, 'BOUGHT', bought.completeMs);
      if (bought.outcome === '409 SOLD_OUT') return settle(trace, 'SOLD_OUT', bought.completeMs);
      // 403 NOT_ADMITTED (the admission lapsed meanwhile) or retries spent: the ticket says what next.
      if (!/^(403 NOT_ADMITTED|503|429|202|error)/.test(bought.outcome))
        return settle(trace, bought.outcome, bought.completeMs);
    } else if (answer.state !== 'ADMITTED') return settle(trace, answer.state ?? 'UNKNOWN', answer.completeMs);
    // Never sooner than the server asked: the wait starts when its answer has come.
    const pollAt = Date.now() + (answer.pollAfterMs ?? 1000);
    if (pollAt >= deadline) break;
    // A timer may fire a millisecond early by the wall clock; the next poll must not.
    while (Date.now() < pollAt) await sleep(pollAt - Date.now());
  }
  return trace;
}

function settle(trace: BuyerTrace, final: string, atMs: number): BuyerTrace {
  trace.final = final;
  if (final === 'SOLD_OUT') trace.soldOutSeenAtMs = atMs;
  return trace;
}

/** One join or poll, recorded in the history; the ticket's fields read from a 200. */
async function queueCall(
  o: QueueDriveOptions,
  transport: HttpTransport,
  op: 'queueJoin' | 'queuePoll',
  url: string,
  user: { id: string; token: string },
): Promise<QueueAnswer> {
  const invokeMs = Date.now();
  let res: HttpAnswer | undefined;
  let error: string | undefined;
  try {
    const headers = { authorization: `Bearer ${user.token}` };
    res =
      op === 'queueJoin'
        ? await transport.post(url, { ...headers, 'content-type': 'application/json' }, '{}')
        : await transport.get(url, headers);
  } catch (caught) {
    error = caught instanceof TransportError ? caught.code : 'UNKNOWN';
  }
  const completeMs = Date.now();
  const body = res ? parseBody(res.body) : {};
  const answer: QueueAnswer = { op, invokeMs, completeMs, status: res?.status ?? 0, error };
  if (res && res.status !== 200) {
    answer.code = typeof body.code === 'string' ? body.code : undefined;
    const header = res.headers['retry-after'];
    answer.retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header);
  } else if (res) {
    Object.assign(answer, {
      ticket: str(body.ticket),
      ticketId: str(body.ticketId),
      state: str(body.state),
      position: typeof body.position === 'number' ? body.position : undefined,
      pollAfterMs: typeof body.pollAfterMs === 'number' ? body.pollAfterMs : undefined,
      admission: str(body.admission),
    });
  }
  record(o.history, o.productId, user.id, answer);
  return answer;
}

function record(history: HistoryLog | undefined, productId: string, userId: string, a: QueueAnswer): void {
  if (!history) return;
  const op = {
    op: a.op,
    invokeMs: a.invokeMs,
    completeMs: a.completeMs,
    productId,
    userId,
    ...(a.error !== undefined ? { error: a.error } : { status: a.status }),
  };
  if (a.code !== undefined) Object.assign(op, { code: a.code });
  if (a.status === 200)
    Object.assign(op, { ticketId: a.ticketId, state: a.state, position: a.position, pollAfterMs: a.pollAfterMs });
  history.add(op as Parameters<HistoryLog['add']>[0]);
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
