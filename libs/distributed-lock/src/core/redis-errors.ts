// ioredis reports an unreachable or unusable server through these messages and codes; they
// mean "no answer", unlike a script error, which is a bug and is rethrown as it is.
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|Connection is closed|maxRetriesPerRequest|Stream isn't writeable|enableOfflineQueue|Command timed out|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|Failed to refresh slots cache|None of startup nodes is available|did not answer within/i;

export function isUnreachableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return UNREACHABLE.test(error.message) || (typeof code === 'string' && UNREACHABLE.test(code));
}

export class NoReplyError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
  }
}

/**
 * Rejects with NoReplyError when `promise` has not settled within `ms`; a value that comes after
 * that goes to `onLate` (an acquire that came too late gives its lock back). The timer is unref'd:
 * a pending reply keeps a process alive no more than the driver's socket does.
 */
export function withReplyTimeout<T>(promise: Promise<T>, ms: number, what: string, onLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new NoReplyError(what, Math.round(ms)));
    }, ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        if (late) onLate?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
