/**
 * Whether a failed Postgres call may still have done its work: the statement went out and its
 * answer was lost (node-postgres' own query_timeout, a reset or end of the connection after it was
 * sent, the backend terminated). An error reply from the server itself (a SQLSTATE such as 23505,
 * 40001, 55P03, 57014) means the statement was rolled back, and a failure to connect means nothing
 * was sent: both are definite. Class 08 (connection exception) and 57P01-57P03 (the server going
 * away) are reported with a SQLSTATE but can arrive after a commit, so they count as unknown.
 */
const SQLSTATE = /^[0-9A-Z]{5}$/;
const LOST_SQLSTATE = /^(08|57P0[1-3])/;

export function isOutcomeUnknown(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const failure = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = failure.driverError?.code ?? failure.code;
  if (typeof code === 'string' && SQLSTATE.test(code)) return LOST_SQLSTATE.test(code);
  return true;
}

/** A statement whose answer was lost: it may or may not have committed. */
export class OutcomeUnknownError extends Error {
  override readonly name = 'OutcomeUnknownError';

  constructor(override readonly cause: unknown) {
    super(`the database's answer was lost: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}
