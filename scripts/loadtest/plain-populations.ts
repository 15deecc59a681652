/*
 * The plain flow's populations (no waiting room, `--bots` without `--waiting-room`): people and a
 * bot operator buy the same product at once, each account up to the product's per-user limit.
 * Pure: what each account's purchase requests were answered, and what each population won. The
 * accounts, their addresses and the units each population won are the waiting-room flow's
 * (populations.ts); what differs is what an account does when refused (retry-policy.ts).
 */
import { NO_REACTION, Population, populationsReport, PopulationsReport } from './populations';
import { outcomeKey, RequestSample } from './recorder';
import { BOT_RESEND_MS, BOT_SENDS_PER_PURCHASE } from './retry-policy';
import { increment } from './stats';

/** One account's purchase requests, by its own records (client clock). */
export interface PurchaseTally {
  /** POST /purchase requests sent, retries included. */
  sent: number;
  /** Answers other than 2xx, by "status code" ("429 RATE_LIMITED", "error TIMEOUT"). */
  refused: Record<string, number>;
  /** Requests sent before the moment the `Retry-After` of the account's latest 429/503 named (from that answer's arrival). */
  sentBeforeRetryAfter: number;
  /** 429s the API said came before the `Retry-After` it had given (docs/API.md, "Retrying a refused purchase"). */
  refusedBeforeRetryAfter: number;
  /** The latest such moment, ms since the epoch (0: none yet): a person sends nothing before it. */
  notBeforeMs: number;
}

export const newTally = (): PurchaseTally => ({
  sent: 0,
  refused: {},
  sentBeforeRetryAfter: 0,
  refusedBeforeRetryAfter: 0,
  notBeforeMs: 0,
});

/** Counts one request and its answer into the account's tally. */
export function tallySend(
  t: PurchaseTally,
  answer: { invokeMs: number; completeMs: number; sample: RequestSample; retryAfterMs?: number; early?: boolean },
): void {
  t.sent++;
  if (answer.invokeMs < t.notBeforeMs) t.sentBeforeRetryAfter++;
  const { status, error } = answer.sample;
  if (error !== undefined || status >= 400) increment(t.refused, outcomeKey(answer.sample));
  if (answer.early) t.refusedBeforeRetryAfter++;
  if ((status === 429 || status === 503) && answer.retryAfterMs !== undefined)
    t.notBeforeMs = Math.max(t.notBeforeMs, answer.completeMs + answer.retryAfterMs);
}

/** Purchases an account makes to hold the per-user limit: at least one, even when one `quantity` exceeds it. */
export const purchasesWanted = (perUserLimit: number, quantity: number): number =>
  Math.max(1, Math.floor(perUserLimit / quantity));

export interface PlainAccount {
  userId: string;
  kind: Population;
  address: string;
  tally: PurchaseTally;
}

export interface PlainPopulationFigures {
  accounts: number;
  addresses: number;
  /** Units of the orders this population's accounts were answered 201 (or CREATED) for, by the run's own records. */
  units: number;
  unitsPerAccount: number;
  /** Units over the product's stock at the start. */
  share: number;
  /** Accounts that won the per-user limit's worth of purchases. */
  atLimit: number;
  /** Purchase requests sent, retries included, and per account. */
  requests: number;
  requestsPerAccount: number;
  /** Answers other than 2xx, by "status code". */
  refused: Record<string, number>;
  sentBeforeRetryAfter: number;
  refusedBeforeRetryAfter: number;
}

export interface PlainPopulationsReport {
  /** No waiting room: no tickets, polls or join work, and no join-to-admission time. */
  flow: 'plain';
  people: PlainPopulationFigures & { joinToAdmissionP95Ms: null };
  bots: PlainPopulationFigures;
  botShare: number;
  /** Units per bot account over units per person account; null without bots or when people won nothing. */
  botToPersonPerAccount: number | null;
  stock: number;
  perUserLimit: number;
  addressing: PopulationsReport['addressing'];
  /** A person's retries of one purchase (each after its Retry-After) before it starts another. */
  personMaxRetries: number;
  /** A bot's pause before re-sending a refused purchase, and its sends of one purchase. */
  botResendMs: number;
  botSendsPerPurchase: number;
}

/**
 * Each population's winnings and requests, from the run's own records: `ordersByUser` holds the
 * distinct orders each user was answered 201 (or CREATED) for, each of `quantity` units. The units,
 * shares and ratio are the waiting-room report's own (populationsReport); the waiting room's
 * fields (tickets, polls, join work, reaction) mean nothing here and are left out.
 */
export function plainPopulationsReport(
  accounts: PlainAccount[],
  run: {
    ordersByUser: ReadonlyMap<string, number>;
    quantity: number;
    stock: number;
    perUserLimit: number;
    addressing: PopulationsReport['addressing'];
    maxRetries: number;
  },
): PlainPopulationsReport {
  const won = populationsReport(
    accounts.map((a) => ({ userId: a.userId, kind: a.kind, address: a.address, answers: [], final: '' })),
    { ...run, reactionMs: NO_REACTION, botPollsPerSecond: 0, solverThreads: 0 },
  );
  const limitUnits = purchasesWanted(run.perUserLimit, run.quantity) * run.quantity;
  const figures = (kind: Population): PlainPopulationFigures => {
    const { accounts: n, addresses, units, unitsPerAccount, share } = kind === 'person' ? won.people : won.bots;
    const refused: Record<string, number> = {};
    let requests = 0;
    let atLimit = 0;
    let sentBeforeRetryAfter = 0;
    let refusedBeforeRetryAfter = 0;
    for (const a of accounts) {
      if (a.kind !== kind) continue;
      requests += a.tally.sent;
      sentBeforeRetryAfter += a.tally.sentBeforeRetryAfter;
      refusedBeforeRetryAfter += a.tally.refusedBeforeRetryAfter;
      for (const [key, count] of Object.entries(a.tally.refused)) increment(refused, key, count);
      if ((run.ordersByUser.get(a.userId) ?? 0) * run.quantity >= limitUnits) atLimit++;
    }
    return {
      accounts: n,
      addresses,
      units,
      unitsPerAccount,
      share,
      atLimit,
      requests,
      requestsPerAccount: n ? requests / n : 0,
      refused,
      sentBeforeRetryAfter,
      refusedBeforeRetryAfter,
    };
  };
  return {
    flow: 'plain',
    people: { ...figures('person'), joinToAdmissionP95Ms: null },
    bots: figures('bot'),
    botShare: won.botShare,
    botToPersonPerAccount: won.botToPersonPerAccount,
    stock: run.stock,
    perUserLimit: run.perUserLimit,
    addressing: run.addressing,
    personMaxRetries: run.maxRetries,
    botResendMs: BOT_RESEND_MS,
    botSendsPerPurchase: BOT_SENDS_PER_PURCHASE,
  };
}
