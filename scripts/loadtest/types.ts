import type { HistoryCheck } from '../history/check-history';
import type { GeneratorRun } from '../history/format';
import type { PlainPopulationsReport } from './plain-populations';
import type { PopulationsReport, ReactionRange } from './populations';
import type { SharedRunOptions } from './shared-run';
import type { GeneratorReport } from './generator-report';
import type { WaitingRoomReport } from './waiting-room-report';

/** Public shapes of the load-test tool: what `runLoadTest` takes and what it gives back. */

export interface LoadTestOptions {
  /** Base URLs of the deployment's instances; requests go round-robin over them. */
  urls: string[];
  /** Use an existing product... */
  productId?: string;
  /** ...or create one with this stock through the admin API (exactly one of the two). */
  stock?: number;
  /** perUserLimit of the created product (ignored with productId). Default 1. */
  perUserLimit?: number;
  /** How many distinct users the attempts are spread over (round-robin). */
  users: number;
  /** Attempts in flight at once (one keep-alive connection each, at most, per URL). */
  connections: number;
  /**
   * Threads the purchase load runs on, the connections shared out between them (never more
   * threads than connections). Default: the machine's cores (os.availableParallelism()). The
   * waiting-room and people-and-bots flows run on one.
   */
  workers?: number;
  /**
   * Where each instance's /metrics answers, in `urls` order (a production instance serves them on
   * its METRICS_PORT, not its public port). Default: the `urls` themselves.
   */
  metricsUrls?: string[];
  /** Stop starting attempts after this many seconds... */
  durationS?: number;
  /** ...or after this many attempts (exactly one of the two). */
  requests?: number;
  /** Units per purchase. Default 1. */
  quantity?: number;
  /** HS256 secret the deployment verifies tokens with. */
  tokenSecret: string;
  /** `iss` of the minted tokens: the deployment's JWT_ISSUER, when it sets one. */
  tokenIssuer?: string;
  /** `aud` of the minted tokens: the deployment's JWT_AUDIENCE (production requires one). */
  tokenAudience?: string;
  /** Retries of one attempt after 503/429 (and transport errors). Default 3. */
  maxRetries?: number;
  /** Longest sleep honoured for one Retry-After. Default 2000 ms. */
  maxRetryDelayMs?: number;
  /** Per-request timeout. Default 10000 ms. */
  requestTimeoutMs?: number;
  /** Where `<timestamp>/report.{json,html}` go; null writes nothing. Default "reports". */
  reportDir?: string | null;
  /** Called about every `progressEveryMs` while the load runs. */
  onProgress?: (progress: ProgressSnapshot) => void;
  /** Default 1000 ms. */
  progressEveryMs?: number;
  /** Write every request as a history (JSON lines, docs/LOADTEST.md) to this file. */
  historyFile?: string;
  /** Judge the history with the checker after the run (writes it beside the report when no historyFile). */
  check?: boolean;
  /** With `check`: read the final orders from Postgres instead of the admin API. */
  databaseUrl?: string;
  /**
   * The waiting-room flow: each of `users` buyers joins the product's queue, polls at the
   * server's pollAfterMs and buys once admitted (a created product gets a waiting room). Needs
   * `durationS` (the time bound), not `requests`.
   */
  waitingRoom?: boolean;
  /** The created product's waitingRoom.admitPerSecond (absent: the server's automatic rate). */
  admitPerSecond?: number;
  /** The created product's waitingRoom.admissionTtlS (absent: the server's default, 120). */
  admissionTtlS?: number;
  /** The waiting-room flow refuses targets other than loopback unless this is set. */
  allowRemote?: boolean;
  /**
   * Bot accounts (`lt-<runId>-bot<k>`) besides the `users` people. With waitingRoom they queue at
   * machine speed; without, every account buys up to the per-user limit and bots re-send refused
   * purchases at once (0 makes that run's people alone: the baseline). Default: none.
   */
  bots?: number;
  /** The client addresses the bots are spread over (round-robin). Default 1 with bots. */
  botAddresses?: number;
  /**
   * Every bot account claims a fresh address of one IPv6 /64 in X-Forwarded-For (from its loopback
   * source address): an operator rotating inside one home line. The target must trust loopback
   * (TRUST_PROXY=loopback).
   */
  botIpv6Rotation?: boolean;
  /** A bot's polls per second per ticket: the deployment's RATE_LIMIT_PER_SECOND. Default 20 (the API's default). */
  botPollsPerSecond?: number;
  /** The created product's sale starts this many seconds after the run begins, its pre-queue open from the start; people arrive over it. */
  preQueueS?: number;
  /** A person's pause between the ADMITTED answer and the purchase. Default 1.5–3 s with bots or a pre-queue, else 0. */
  reactionMs?: ReactionRange;
  /** The created product's waitingRoom.joinWork: { squarings }. */
  joinWork?: number;
  /** The created product's waitingRoom.joinsPerAddress. */
  joinsPerAddress?: number;
  /** Threads solving join work in the load generator. Default: its cores (os.availableParallelism()). */
  solverThreads?: number;
  /** The buyer of every Nth order pays it at once (recorded in the history). Default: none. */
  payEvery?: number;
  /** The buyer of every Nth order cancels it at once (recorded in the history). Default: none. */
  cancelEvery?: number;
  /** One reader reads the product's stock this often while the load runs (recorded in the history). Default: never. */
  readEveryMs?: number;
  /** The deployment's ORDER_PAYMENT_TTL_S, when the writer knows it: the history's meta gives it to the checker. */
  paymentTtlS?: number;
  /** With `check`: rule ids (or `all`) that must judge something (default: the checker's set for the history kind). */
  requireRules?: string[];
  /** Identifies this run in user ids (`lt-<runId>-<n>`), the sku and idempotency keys. Default random. */
  runId?: string;
  /** One generator of a run several share (`--run-id` with `--role`): see shared-run.ts. */
  shared?: SharedRunOptions;
  /** Called once the product is known, before the load starts (a shared run's lead prints the followers' command). */
  onSaleReady?: (sale: { runId: string; productId: string }) => void;
}

export interface ProgressSnapshot {
  elapsedS: number;
  requests: number;
  created: number;
  conflicts: number;
  unavailable: number;
  /** Requests per second over the last second. */
  rps: number;
}

export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface HistogramBucket {
  /** Inclusive lower and exclusive upper bound, in ms. */
  fromMs: number;
  toMs: number;
  count: number;
}

/** One second of the run: requests finished in it, by HTTP status ("error" for transport failures). */
export interface SecondBucket {
  second: number;
  total: number;
  byStatus: Record<string, number>;
}

export interface InvariantResult {
  name: string;
  ok: boolean;
  /** A warning does not fail the run. */
  severity: 'error' | 'warning';
  detail: string;
}

export interface ProductSnapshot {
  id: string;
  stock: number;
  perUserLimit: number;
}

/** The servers' admission queue over the run (their /metrics, after minus before). */
export interface AdmissionReport {
  /** Purchases refused 503 OVERLOADED, by why (wait_estimate, queue_full, expired, lock_wait, statement_bound). */
  refusedByReason: Record<string, number>;
  /** From arrival to the start of the purchase's batch, over the purchases that reached a batch. */
  queueWait: { count: number; p50Ms: number | null; p99Ms: number | null };
  /** Answers later than PURCHASE_DEADLINE_MS. */
  deadlineMisses: number;
}

export interface LoadTestResult {
  runId: string;
  startedAt: string;
  finishedAt: string;
  urls: string[];
  product: ProductSnapshot & { createdByRun: boolean; initialStock: number; finalStock: number };
  config: {
    users: number;
    connections: number;
    durationS?: number;
    requests?: number;
    quantity: number;
    maxRetries: number;
    waitingRoom?: boolean;
    bots?: number;
    botAddresses?: number;
    preQueueS?: number;
    workers?: number;
  };
  elapsedS: number;
  /** Logical purchase attempts started (one Idempotency-Key each). */
  attempts: number;
  /** HTTP requests sent, retries included. */
  requests: number;
  retries: number;
  /** Distinct orders the tool saw created (201). */
  purchases: number;
  purchasesPerSecond: number;
  /** When the first SOLD_OUT came (seconds since the start) and the orders created by then: the sale's own pace. */
  sellOut?: { afterS: number; orders: number; perSecond: number };
  requestsPerSecond: number;
  /** Every response by HTTP status and by "status code" key (e.g. "409 SOLD_OUT"); transport failures under "error". */
  byStatus: Record<string, number>;
  byCode: Record<string, number>;
  /** Final outcome of each attempt, same keys as byCode. */
  attemptOutcomes: Record<string, number>;
  /** Transport failures by kind (ECONNREFUSED, TIMEOUT...). */
  errors: Record<string, number>;
  latency: LatencySummary;
  histogram: HistogramBucket[];
  timeline: SecondBucket[];
  /** Absent when a target's /metrics could not be read. */
  admission?: AdmissionReport;
  /** The load generator's own CPU and event-loop lag, and the seconds in which it was the limit. */
  generator?: GeneratorReport;
  invariants: InvariantResult[];
  /** Units sold beyond the stock by the audit's figures (0 when none); `--fail-on oversell>0`. */
  oversoldUnits?: number;
  /** The waiting-room flow's figures (with `waitingRoom`). */
  waitingRoom?: WaitingRoomReport;
  /** What people and bots each won: with `waitingRoom`, or (`flow: 'plain'`) with `bots` and no waiting room. */
  populations?: PopulationsReport | PlainPopulationsReport;
  /** Where the history went (`historyFile`, or beside the report with `check`). */
  historyPath?: string;
  /** The checker's verdict on the history (with `check`). */
  historyCheck?: HistoryCheck;
  /** A shared run's: this generator, its role and its clock against the API's (as its history's meta has them). */
  shared?: GeneratorRun;
  /** False when any invariant of severity "error" failed, or the history check did. */
  ok: boolean;
  reportPaths?: { dir: string; json: string; html: string };
}
