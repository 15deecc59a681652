import { isRedisUnreachable, LockUnavailableError } from '@app/distributed-lock';
/** Recognises failures of Postgres or Redis that mean "unreachable", not "bad request". */

const PG_UNAVAILABLE_SQLSTATE = /^(08|53|57P0[1-4]|58)/; // connection, resources, shutdown, system errors
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const PG_UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection terminated unexpectedly',
  'canceling statement due to statement timeout',
  'terminating connection',
  'the database system is',
  // node-postgres' own query_timeout (DB_STATEMENT_TIMEOUT_MS + 1 s): the server stopped answering.
  'Query read timeout',
];
// Postgres gave up on this transaction to break a deadlock, or could not serialise it: nothing it
// did was committed, and running it again is safe.
const PG_TRANSACTION_CONFLICT = new Set(['40P01', '40001']);

interface MaybeDriverError {
  code?: unknown;
  message?: unknown;
  driverError?: MaybeDriverError;
  name?: unknown;
}

function messageOf(error: MaybeDriverError): string {
  return typeof error.message === 'string' ? error.message : '';
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const candidate = error as MaybeDriverError;
  const inner = candidate.driverError ?? candidate;
  const code = typeof inner.code === 'string' ? inner.code : '';
  if (NETWORK_CODES.has(code) || PG_UNAVAILABLE_SQLSTATE.test(code) || code === '57014') return true;
  const message = messageOf(inner) || messageOf(candidate);
  return PG_UNAVAILABLE_MESSAGES.some((m) => message.includes(m)) || candidate.name === 'CannotConnectError';
}

/**
 * Redis is unreachable: the lock library said so (LockUnavailableError), or a Redis call of the app
 * failed in one of the ways the library's one list of such failures names.
 */
export function isRedisUnavailable(error: unknown): boolean {
  return error instanceof LockUnavailableError || isRedisUnreachable(error);
}

/** A deadlock or serialization failure: the transaction was rolled back and may be run again. */
export function isTransactionConflict(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const candidate = error as MaybeDriverError;
  const code = (candidate.driverError ?? candidate).code;
  return typeof code === 'string' && PG_TRANSACTION_CONFLICT.has(code);
}

const WARN_EVERY_MS = 10_000;
const lastWarnedAt = new Map<string, number>();

/** How long after Redis was found unreachable work that may skip it does so without asking. */
export const REDIS_DOWN_HOLD_MS = 1000;
let redisDownUntil = 0;

/** Records that a Redis call just met an unreachable Redis (see redisRecentlyDown). */
export function noteRedisDown(now = Date.now()): void {
  redisDownUntil = now + REDIS_DOWN_HOLD_MS;
}

/** Drops the hold: Redis is known to answer again (and each spec starts from a Redis that answers). */
export function forgetRedisDown(): void {
  redisDownUntil = 0;
}

/**
 * Whether a Redis call met an unreachable Redis within the last REDIS_DOWN_HOLD_MS. Work that may
 * be skipped while Redis is unreachable (a rate limit, the sold-out flag, an Idempotency-Key
 * marker) skips it without asking meanwhile: a Redis that hangs instead of refusing (a paused or
 * partitioned server) costs each call the whole command timeout, and a purchase makes several
 * such calls before its batch, which together would eat its deadline. After the hold the next call
 * asks Redis again, and so finds it back.
 */
export function redisRecentlyDown(now = Date.now()): boolean {
  return now < redisDownUntil;
}

/**
 * The policy for work that may be skipped while Redis is unreachable, such as a rate limit (no
 * invariant depends on it), applied to the error that work failed with: an unreachable Redis
 * (isRedisUnavailable) returns, so the caller goes on without it, warning at most once per 10 s
 * per `what`; any other failure is thrown as it is. The product lock's own choice (LOCK_FALLBACK:
 * run on Postgres alone, or refuse) is the lock module's `whenUnreachable`.
 */
export function skipWhenRedisDown(error: unknown, context: SkipContext): void {
  if (!isRedisUnavailable(error)) throw error;
  const now = Date.now();
  noteRedisDown(now);
  if (now - (lastWarnedAt.get(context.what) ?? 0) >= WARN_EVERY_MS) {
    lastWarnedAt.set(context.what, now);
    context.log.warn(`${context.what} skipped: redis unavailable`);
  }
}

/** What a skipped Redis call is (the warning's words) and where the warning goes. */
export interface SkipContext {
  log: { warn(message: string): void };
  what: string;
}

/**
 * skipWhenRedisDown as the rejection handler of a Redis call (`call.catch(handler)`), made once per
 * call site: `fallback` when Redis is unreachable (warned at most once per 10 s per `what`); any
 * other failure rethrown as it is. Nothing of it runs while Redis answers.
 */
export function fallbackWhenRedisDown<F>(context: SkipContext, fallback: F): (error: unknown) => F {
  return (error) => {
    skipWhenRedisDown(error, context);
    return fallback;
  };
}
