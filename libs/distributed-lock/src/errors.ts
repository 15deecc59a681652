/** Base class of every error the lock library throws; `key` names the lock concerned. */
export class LockError extends Error {
  constructor(
    message: string,
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The lock stayed held by someone else for the whole `waitMs`. */
export class LockTimeoutError extends LockError {
  constructor(
    key: string,
    readonly waitMs: number,
  ) {
    super(`lock "${key}" was not acquired within ${waitMs} ms (held elsewhere)`, key);
  }
}

/** Redis could not be reached, or fewer than a quorum of Redlock nodes answered. */
export class LockUnavailableError extends LockError {
  constructor(key: string, reason: string, cause?: unknown) {
    super(`lock "${key}" is unavailable: ${reason}`, key, { cause });
  }
}

/** The lease ran out or was taken over while the work was still running. */
export class LockLostError extends LockError {
  constructor(key: string, reason = 'the lease expired or was taken over before the work finished') {
    super(`lock "${key}" was lost: ${reason}`, key);
  }
}

/** The caller's `AbortSignal` ended the wait before the lock was held; `cause` is its reason. */
export class LockAbortedError extends LockError {
  constructor(key: string, reason: unknown) {
    super(`lock "${key}" was not acquired: the wait was aborted`, key, { cause: reason });
  }
}
