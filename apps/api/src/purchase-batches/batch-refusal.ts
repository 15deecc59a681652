import { LockTimeoutError } from '@app/distributed-lock';
import type { RefusalReason } from './overloaded.error';

/** The lock came, but too late for the batch's cut-off: the batch is answered without running. */
export class DeadlineSpentError extends Error {
  override readonly name = 'DeadlineSpentError';
}

/** A batch answered OVERLOADED as a whole, for `reason`: nothing was done for any of it. */
export class BatchRefusedError extends Error {
  override readonly name = 'BatchRefusedError';

  constructor(readonly reason: RefusalReason) {
    super(`batch refused: ${reason}`);
  }
}

// lock_not_available: the statement's lock_timeout (the batch's cut-off) ran out on a row lock.
const PG_LOCK_TIMEOUT = '55P03';

/**
 * Whether a batch failed because its cut-off came (answered 503 OVERLOADED, nothing done) and
 * why; undefined for any other failure. A lock wait that LOCK_WAIT_MS ended, not the cut-off,
 * stays LOCK_TIMEOUT.
 */
export function deadlineRefusal(error: unknown, lockWaitBoundByDeadline: boolean): RefusalReason | undefined {
  if (error instanceof DeadlineSpentError) return 'expired';
  if (error instanceof LockTimeoutError && lockWaitBoundByDeadline) return 'lock_wait';
  if ((error as { code?: unknown } | null)?.code === PG_LOCK_TIMEOUT) return 'statement_bound';
  return undefined;
}
