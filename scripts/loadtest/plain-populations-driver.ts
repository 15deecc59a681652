/*
 * The plain flow with populations (`--bots` without `--waiting-room`): every account, people and
 * bots at once, buys the product up to its per-user limit, one purchase after the other, each
 * purchase one Idempotency-Key re-sent when refused. A person re-sends after the answer's
 * Retry-After (never sooner, `--max-retries` times, then starts another purchase, still after it);
 * a bot re-sends after BOT_RESEND_MS whatever Retry-After said (BOT_SENDS_PER_PURCHASE sends, then
 * another purchase). An account stops with its limit bought, on a final refusal (SOLD_OUT,
 * PER_USER_LIMIT...), or when `--duration` is up. Each person sends from an address of its own,
 * each bot from one of the operator's (the waiting-room flow's Clients).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterCreated, attemptIsOver, sendRecordedPurchase, settlePending } from './driver';
import { HttpTransport } from './http-transport';
import { AccountPlan } from './populations';
import { newTally, PlainAccount, purchasesWanted, tallySend } from './plain-populations';
import { isRetryableStatus, populationRetry } from './retry-policy';
import { BOT_SOCKETS_PER_ADDRESS, Clients, QueueDriveOptions } from './waiting-room-driver';

export interface PlainPopulationOptions extends QueueDriveOptions {
  /** Who each of `users` is (same order). */
  plans: AccountPlan[];
  /** The product's per-user limit: each account buys up to it. */
  perUserLimit: number;
}

type User = { id: string; token: string };

export async function drivePlainPopulations(o: PlainPopulationOptions): Promise<PlainAccount[]> {
  const clients = new Clients(o);
  // A person sends on a connection of its own, as a real buyer does: its purchases do not wait
  // behind other people's inside the tool (a shared cap let the bots' own sockets send first and
  // win a race for scarce stock that no retry decided). Bots keep their addresses' 8 sockets.
  const own: HttpTransport[] = [];
  const transportOf = (plan: AccountPlan): HttpTransport => {
    if (plan.kind === 'bot') return clients.of(plan);
    const source = o.addressing === 'loopback-source' ? { localAddress: plan.address } : { forwardedFor: plan.address };
    own.push(new HttpTransport(1, o.requestTimeoutMs, source));
    return own[own.length - 1];
  };
  try {
    const transports = o.plans.map(transportOf);
    // A person's transport is its own (one socket); a bot address's is shared by its accounts.
    const sockets = new Map(
      o.plans.map((plan, n) => [transports[n], plan.kind === 'bot' ? BOT_SOCKETS_PER_ADDRESS : 1]),
    );
    await openConnections(o, sockets);
    // The sale's first instant: every account's time runs from here.
    const deadline = Date.now() + o.durationS * 1000;
    // Accounts start in a random order: the first sends of the sale are not people's (or bots') by
    // their place in the list.
    const accounts: PlainAccount[] = new Array(o.users.length);
    await Promise.all(
      shuffled(o.users.length).map(async (n) => {
        accounts[n] = await account(o, transports[n], o.users[n], n, deadline);
      }),
    );
    return accounts;
  } finally {
    clients.close();
    for (const transport of own) transport.close();
  }
}

/**
 * Before the first instant every client opens its connections by reading the product, as a
 * shopper with the product page open does (and a script with its sockets ready): the first
 * purchases then race by when they are sent, not by which of some 2,000 new connections this one
 * process happened to set up first. Opened at the first instant, the people's connections fell
 * behind the bots' 80 in about one run in five, and the bots won 2.2-3.3x a person's units with
 * one send per account. Not recorded: the history holds the sale's requests only.
 */
async function openConnections(o: PlainPopulationOptions, sockets: Map<HttpTransport, number>): Promise<void> {
  const product = `/products/${encodeURIComponent(o.productId)}`;
  const reads = [...sockets].flatMap(([transport, count]) =>
    o.urls.flatMap((url) => Array.from({ length: count }, () => transport.get(`${url}${product}`, {}))),
  );
  await Promise.all(reads.map((read) => read.catch(() => undefined)));
}

/** 0 .. count-1 in a random order (Fisher-Yates). */
export function shuffled(count: number, random: () => number = Math.random): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

async function account(
  o: PlainPopulationOptions,
  transport: HttpTransport,
  user: User,
  n: number,
  deadline: number,
): Promise<PlainAccount> {
  const plan = o.plans[n];
  const trace: PlainAccount = { userId: user.id, kind: plan.kind, address: plan.address, tally: newTally() };
  const wanted = purchasesWanted(o.perUserLimit, o.quantity);
  let bought = 0;
  for (let k = 0; bought < wanted && Date.now() < deadline; k++) {
    // A person told to come back after the run's end does not.
    if (plan.kind === 'person' && trace.tally.notBeforeMs >= deadline) break;
    const ended = await buy(o, transport, user, n, k, trace, deadline);
    if (ended === 'created') bought++;
    else if (ended === 'final') break;
  }
  return trace;
}

/**
 * One purchase of the account: `created` (201, or a 202 found CREATED), `final` (a refusal that
 * retrying cannot change), or `open` (retries spent, time up, or a 202 never settled).
 */
async function buy(
  o: PlainPopulationOptions,
  transport: HttpTransport,
  user: User,
  n: number,
  k: number,
  trace: PlainAccount,
  deadline: number,
): Promise<'created' | 'final' | 'open'> {
  const person = trace.kind === 'person';
  const key = `lt-${o.runId}-${person ? 'p' : 'b'}${n}-${k}`;
  o.recorder.attempts++;
  for (let retry = 0; ; retry++) {
    // A person never sends before the Retry-After it was last given, also with a new key; a timer
    // may fire a millisecond early by the wall clock, so the wait is re-checked.
    if (person) while (Date.now() < trace.tally.notBeforeMs) await sleep(trace.tally.notBeforeMs - Date.now());
    const url = o.urls[(n + k + retry) % o.urls.length];
    const response = await sendRecordedPurchase(o, transport, url, user, key, user.id);
    tallySend(trace.tally, response);
    if (response.sample.status === 202) {
      const orderId = await settlePending(o, transport, url, user, response, deadline);
      if (!orderId) return 'open';
      await afterCreated(o, transport, url, user, orderId);
      return 'created';
    }
    const next = populationRetry(trace.kind, response.retryAfterMs, retry, o);
    const waitMs = next.retry ? next.waitMs : 0;
    const outOfRetries = !next.retry || Date.now() + waitMs >= deadline;
    if (attemptIsOver(o.recorder, response, user.id, outOfRetries)) {
      if (response.orderId) {
        await afterCreated(o, transport, url, user, response.orderId);
        return 'created';
      }
      return response.sample.error !== undefined || isRetryableStatus(response.sample.status) ? 'open' : 'final';
    }
    o.recorder.retries++;
    await sleep(waitMs);
  }
}
