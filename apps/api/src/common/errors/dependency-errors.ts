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
  return PG_UNAVAILABLE_MESSAGES.some((m) => message.includes(m));
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
