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
 * Rejects with NoReplyError when `promise` has not settled within `ms`. On every lock operation's
 * path, so kept cheap: one timer (whole ms, so timers share Node's per-duration list), no race.
 */
export function withReplyTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new NoReplyError(what, ms)), Math.ceil(ms));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
