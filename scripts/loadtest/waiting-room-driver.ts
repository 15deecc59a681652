/*
 * The waiting-room flow: every simulated buyer joins the product's queue, polls its ticket and
 * buys with its `Admission` once ADMITTED. Two populations (populations.ts): people arrive over
 * the pre-queue window (all at once without one), poll no sooner than the `pollAfterMs` the server
 * last said and pause a reaction time before buying; bots join at the first instant, poll at the
 * per-ticket limit, buy the moment they are admitted and re-send refused purchases at once. Each
 * person sends from an address of its own, each bot from one of the operator's addresses. People's
 * joins and polls in flight are capped by `connections` per URL (shared); each bot address has
 * BOT_SOCKETS_PER_ADDRESS of its own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { HistoryLog } from '../history/writer';
import { DriveOptions } from './driver';
import { Gate, GatedTransport } from './gated-transport';
import { ClientSource, HttpAnswer, HttpTransport, parseBody, TransportError } from './http-transport';
import type { JoinWorkAnswer } from '../../apps/api/src/waiting-room/join-work/join-work';
import { JoinWorkPool } from './join-work';
import { AccountPlan, NO_REACTION, PopulationTrace } from './populations';
import { parseRetryAfter, retryDelayMs } from './retry-policy';
import { buyOnce } from './waiting-room-purchase';
import { QueueAnswer } from './waiting-room-trace';

/** Waits on refusals of queue requests (503, 429, 403 before the pre-queue opens) without a hint. */
const QUEUE_RETRY_CAP_MS = 5000;
/** Sockets (and requests in flight) of each bot address; a person has its own few. */
export const BOT_SOCKETS_PER_ADDRESS = 8;
const PERSON_SOCKETS = 2;
/** A bot's pause before re-sending a refused join, poll or challenge (503, SALE_NOT_ACTIVE, no answer): Retry-After ignored. */
const BOT_RETRY_MS = 50;
/** Solved join work is sent again after a refused join only while its challenge has this long left. */
const WORK_REUSE_MARGIN_MS = 2000;
/** The API's default RATE_LIMIT_PER_SECOND: the per-ticket poll budget a bot polls at. */
export const DEFAULT_BOT_POLLS_PER_SECOND = 20;

export interface QueueDriveOptions extends Omit<DriveOptions, 'requests'> {
  durationS: number;
  /** Who each of `users` is (same order); absent: everyone a person buying at once, on one shared transport. */
  plans?: AccountPlan[];
  /** Real loopback source addresses, or X-Forwarded-For (a remote target behind a trusted proxy). */
  addressing?: 'loopback-source' | 'x-forwarded-for';
  /** A bot's polls per second per ticket (the deployment's RATE_LIMIT_PER_SECOND). */
  botPollsPerSecond?: number;
  /** The product asks a proof of work to join: fetch the sale's challenge and solve it before joining. */
  joinWork?: boolean;
  /** Threads of the join-work solver pool (default: the cores). */
  solverThreads?: number;
}

type User = { id: string; token: string };
/** The join's solved work (the challenge, the nonce, the solution), and when its challenge expires (ms; 0: unknown). */
type SolvedWork = { work: JoinWorkAnswer; expiresAtMs: number };

/** One transport per client address, made when its first client arrives (the plain flow's populations use it too). */
export class Clients {
  private readonly peopleGate: Gate;
  private readonly byAddress = new Map<string, HttpTransport>();
  private readonly shared: HttpTransport;

  constructor(private readonly o: QueueDriveOptions) {
    this.peopleGate = new Gate(o.connections * o.urls.length);
    this.shared = new GatedTransport(this.peopleGate, o.connections, o.requestTimeoutMs);
  }

  of(plan: AccountPlan | undefined): HttpTransport {
    if (!plan || !this.o.addressing) return this.shared;
    const key = plan.claims ?? plan.address;
    let transport = this.byAddress.get(key);
    if (!transport) {
      const source: ClientSource = sourceOf(plan, this.o.addressing);
      transport =
        plan.kind === 'bot'
          ? new GatedTransport(BOT_SOCKETS_PER_ADDRESS, BOT_SOCKETS_PER_ADDRESS, this.o.requestTimeoutMs, source)
          : new GatedTransport(this.peopleGate, PERSON_SOCKETS, this.o.requestTimeoutMs, source);
      this.byAddress.set(key, transport);
    }
    return transport;
  }

  close(): void {
    this.shared.close();
    for (const transport of this.byAddress.values()) transport.close();
  }
}

/** Where an account's requests come from: its source address or its forwarded one, and what it claims. */
export function sourceOf(plan: AccountPlan, addressing: 'loopback-source' | 'x-forwarded-for'): ClientSource {
  const own: ClientSource =
    addressing === 'loopback-source' ? { localAddress: plan.address } : { forwardedFor: plan.address };
  return plan.claims === undefined ? own : { ...own, forwardedFor: plan.claims };
}

export async function driveWaitingRoom(options: QueueDriveOptions): Promise<PopulationTrace[]> {
  const deadline = options.recorder.startedAt + options.durationS * 1000;
  const clients = new Clients(options);
  const pool = new JoinWorkPool(options.solverThreads);
  try {
    return await Promise.all(
      options.users.map((user, n) => buyer(options, clients, pool, user, n, options.plans?.[n], deadline)),
    );
  } finally {
    clients.close();
    await pool.close();
  }
}

const everyoneAPerson = (n: number): AccountPlan => ({
  kind: 'person',
  index: n,
  address: '',
  addressIndex: n,
  arriveAfterMs: 0,
  reactionMs: NO_REACTION.minMs,
});

async function buyer(
  o: QueueDriveOptions,
  clients: Clients,
  pool: JoinWorkPool,
  user: User,
  n: number,
  given: AccountPlan | undefined,
  deadline: number,
): Promise<PopulationTrace> {
  const plan = given ?? everyoneAPerson(n);
  const bot = plan.kind === 'bot';
  const trace: PopulationTrace = {
    userId: user.id,
    kind: plan.kind,
    address: plan.address,
    answers: [],
    final: 'TIMED_OUT',
  };
  const arriveAt = o.recorder.startedAt + plan.arriveAfterMs;
  if (arriveAt >= deadline) return trace;
  if (arriveAt > Date.now()) await sleep(arriveAt - Date.now());
  trace.arrivedAtMs = Date.now();
  const transport = clients.of(given);
  const base = `/products/${encodeURIComponent(o.productId)}/queue`;
  const url = (k: number) => o.urls[(n + k) % o.urls.length];
  const pollEveryMs = 1000 / (o.botPollsPerSecond ?? DEFAULT_BOT_POLLS_PER_SECOND);
  let needWork = o.joinWork === true;
  let reacted = bot;
  let ticket: string | undefined;
  let attempt = 0;
  // Solved work no join has spent yet, sent again while its challenge is good: the API claims a
  // solution only with a ticket, and answers a user who holds one with it, work or not.
  let unspent: SolvedWork | undefined;
  for (let k = 0; Date.now() < deadline; k++) {
    let body = '{}';
    if (!ticket && needWork) {
      let work = unspent && unspent.expiresAtMs - Date.now() > WORK_REUSE_MARGIN_MS ? unspent : undefined;
      if (!work) {
        const solved = await solveChallenge(transport, pool, plan, trace, `${url(k)}${base}/challenge`, user, deadline);
        if (typeof solved === 'string') return settle(trace, solved, Date.now());
        if (!solved) break;
        work = solved;
      }
      unspent = work;
      body = JSON.stringify({ work: work.work });
    }
    const answer = ticket
      ? await queueCall(o, transport, 'queuePoll', `${url(k)}${base}/${encodeURIComponent(ticket)}`, user)
      : await queueCall(o, transport, 'queueJoin', `${url(k)}${base}`, user, body);
    trace.answers.push(answer);
    if (answer.status !== 200) {
      if (answer.code === 'SOLD_OUT') return settle(trace, 'SOLD_OUT', answer.completeMs);
      if (!ticket && answer.code === 'JOIN_WORK_REQUIRED' && !needWork) {
        needWork = true;
        continue;
      }
      const rateLimited = isRateLimited(answer);
      const retryable =
        answer.error !== undefined || answer.status === 503 || rateLimited || answer.code === 'SALE_NOT_ACTIVE';
      if (!retryable) return settle(trace, `${answer.status} ${answer.code ?? ''}`.trim(), answer.completeMs);
      // Its work, if any, goes again: a join that got no ticket spent none. A bot waits out a 429
      // only: within the window nothing else gets through. A refused join (its user's join
      // budget, or its address holding joinsPerAddress live tickets) is sent again, by people and
      // bots alike, no sooner than its Retry-After (however long: one of the address's tickets may
      // have ended by then), until a ticket, the sell-out or the run's end.
      const wait = !rateLimited
        ? bot
          ? BOT_RETRY_MS
          : retryDelayMs(answer.retryAfterMs ?? 1000, 0, QUEUE_RETRY_CAP_MS)
        : answer.op === 'queueJoin'
          ? joinRetryMs(answer.retryAfterMs)
          : retryDelayMs(answer.retryAfterMs ?? 1000, 0, QUEUE_RETRY_CAP_MS);
      await sleep(Math.min(wait, Math.max(0, deadline - Date.now())));
      continue;
    }
    ticket ??= answer.ticket;
    trace.ticketId ??= answer.ticketId;
    trace.joinCompleteMs ??= answer.completeMs;
    if (answer.state === 'WAITING') trace.lastWaitingInvokeMs = answer.invokeMs;
    else if (answer.state === 'ADMITTED' && answer.admission) {
      trace.admittedAtMs ??= answer.completeMs;
      if (!reacted) {
        // A person reads, decides and taps, once; the admission outlives it by far (validated).
        reacted = true;
        if (Date.now() + plan.reactionMs >= deadline) break;
        await sleep(plan.reactionMs);
      }
      const key = `lt-${o.runId}-${bot ? 'b' : ''}${n}-${attempt++}`;
      const bought = await buyOnce(o, transport, user, answer.admission, key, deadline, bot);
      trace.purchaseAnsweredAtMs = bought.completeMs;
      trace.purchaseOutcome = bought.outcome;
      if (bought.outcome === '201') return settle(trace, 'BOUGHT', bought.completeMs);
      if (bought.outcome === '409 SOLD_OUT') return settle(trace, 'SOLD_OUT', bought.completeMs);
      // 403 NOT_ADMITTED (the admission lapsed meanwhile) or retries spent: the ticket says what next.
      if (!/^(403 NOT_ADMITTED|503|429|202|error)/.test(bought.outcome))
        return settle(trace, bought.outcome, bought.completeMs);
    } else if (answer.state !== 'ADMITTED') return settle(trace, answer.state ?? 'UNKNOWN', answer.completeMs);
    // A person: never sooner than the server asked, counted from when its answer came. A bot: at
    // the per-ticket limit, counted from when its last poll was sent.
    const pollAt = bot ? answer.invokeMs + pollEveryMs : Date.now() + (answer.pollAfterMs ?? 1000);
    if (pollAt >= deadline) break;
    // A timer may fire a millisecond early by the wall clock; the next poll must not.
    while (Date.now() < pollAt) await sleep(pollAt - Date.now());
  }
  return trace;
}

const isRateLimited = (a: { status: number; code?: string }): boolean =>
  a.status === 429 && (a.code === undefined || a.code === 'RATE_LIMITED');
/** A refused join's wait: its Retry-After whole (uncapped), plus jitter of up to 20% bounded by the queue's cap. */
export const joinRetryMs = (retryAfterMs: number | undefined, random = Math.random): number => {
  const hint = retryAfterMs ?? 1000;
  return hint + Math.min(Math.round(hint * 0.2 * random()), QUEUE_RETRY_CAP_MS);
};

/**
 * Fetches the sale's join-work challenge (`GET .../queue/challenge`, public: no token) and solves
 * it on the pool for this account (its user id, the token's `sub`, and a fresh nonce): the join's
 * `work`, a final outcome ("challenge 404 ...") when it is refused for good, or undefined when the
 * run's time is up.
 */
async function solveChallenge(
  transport: HttpTransport,
  pool: JoinWorkPool,
  plan: AccountPlan,
  trace: PopulationTrace,
  url: string,
  user: User,
  deadline: number,
): Promise<SolvedWork | string | undefined> {
  while (Date.now() < deadline) {
    let res: HttpAnswer | undefined;
    let key: string;
    try {
      res = await transport.get(url, {});
      key = String(res.status);
    } catch (caught) {
      key = `error ${caught instanceof TransportError ? caught.code : 'UNKNOWN'}`;
    }
    const body = res ? parseBody(res.body) : {};
    if (res && res.status !== 200 && typeof body.code === 'string') key = `${key} ${body.code}`;
    (trace.challenges ??= []).push(key);
    if (res?.status === 200) {
      const { challenge, modulus, squarings, expiresAt } = body;
      if (typeof challenge !== 'string' || typeof modulus !== 'string' || typeof squarings !== 'number')
        return 'challenge 200 UNREADABLE';
      const solved = await pool.solve({ challenge, modulus, squarings }, user.id, plan.kind);
      (trace.solves ??= []).push({ cpuMs: solved.cpuMs, wallMs: solved.wallMs, queueMs: solved.queueMs });
      const expiresAtMs = typeof expiresAt === 'string' ? Date.parse(expiresAt) : NaN;
      return { work: solved.work, expiresAtMs: Number.isNaN(expiresAtMs) ? 0 : expiresAtMs };
    }
    const code = typeof body.code === 'string' ? body.code : undefined;
    const rateLimited = res !== undefined && isRateLimited({ status: res.status, code });
    // Before the queue opens (SALE_NOT_ACTIVE) there is no challenge yet: asked again, as a join is.
    if (res && res.status !== 503 && !rateLimited && code !== 'SALE_NOT_ACTIVE') return `challenge ${key}`;
    const header = res?.headers['retry-after'];
    const hint = parseRetryAfter(Array.isArray(header) ? header[0] : header);
    const wait = plan.kind === 'bot' && !rateLimited ? BOT_RETRY_MS : retryDelayMs(hint ?? 1000, 0, QUEUE_RETRY_CAP_MS);
    await sleep(Math.min(wait, Math.max(0, deadline - Date.now())));
  }
  return undefined;
}

function settle(trace: PopulationTrace, final: string, atMs: number): PopulationTrace {
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
  user: User,
  body = '{}',
): Promise<QueueAnswer> {
  const invokeMs = Date.now();
  let res: HttpAnswer | undefined;
  let error: string | undefined;
  try {
    const headers = { authorization: `Bearer ${user.token}` };
    res =
      op === 'queueJoin'
        ? await transport.post(url, { ...headers, 'content-type': 'application/json' }, body)
        : await transport.get(url, headers);
  } catch (caught) {
    error = caught instanceof TransportError ? caught.code : 'UNKNOWN';
  }
  const completeMs = Date.now();
  const parsed = res ? parseBody(res.body) : {};
  const answer: QueueAnswer = { op, invokeMs, completeMs, status: res?.status ?? 0, error };
  if (res && res.status !== 200) {
    answer.code = typeof parsed.code === 'string' ? parsed.code : undefined;
    const header = res.headers['retry-after'];
    answer.retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header);
  } else if (res) {
    Object.assign(answer, {
      ticket: str(parsed.ticket),
      ticketId: str(parsed.ticketId),
      state: str(parsed.state),
      position: typeof parsed.position === 'number' ? parsed.position : undefined,
      pollAfterMs: typeof parsed.pollAfterMs === 'number' ? parsed.pollAfterMs : undefined,
      admission: str(parsed.admission),
    });
  }
  record(o.history, o.productId, user.id, answer);
  return answer;
}

function record(history: Pick<HistoryLog, 'add'> | undefined, productId: string, userId: string, a: QueueAnswer): void {
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
