import { ReplyDeadlines } from './reply-deadlines';
import { now } from './timing';

// ioredis reports an unreachable or unusable server through these messages and codes; they
// mean "no answer", unlike a script error, which is a bug and is rethrown as it is.
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|Connection is closed|maxRetriesPerRequest|Stream isn't writeable|enableOfflineQueue|Command timed out|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|Failed to refresh slots cache|None of startup nodes is available|did not answer within/i;

export function isUnreachableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return UNREACHABLE.test(error.message) || (typeof code === 'string' && UNREACHABLE.test(code));
}

const replyDeadlines = new ReplyDeadlines();

export class NoReplyError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
  }
}

/** Rejects with NoReplyError when `promise` has not settled within `ms`. */
export function withReplyTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return withReplyDeadline(promise, now() + ms, ms, what);
}

/**
 * Rejects with NoReplyError when `promise` has not settled by the monotonic time `at`, which the
 * caller computed from a clock reading it already had (`ms`: the allowance, for the message).
 * `settle` maps a timely value in the same step (no promise of its own); `onLate` receives a value
 * that came after the deadline had passed.
 */
export function withReplyDeadline<T, R = T>(
  promise: Promise<T>,
  at: number,
  ms: number,
  what: string,
  settle?: (value: T) => R | PromiseLike<R>,
  onLate?: (value: T) => void,
): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    const deadline = replyDeadlines.add(at, () => reject(new NoReplyError(what, Math.round(ms))));
    promise.then(
      (value) => {
        if (!deadline.linked) return onLate?.(value);
        replyDeadlines.remove(deadline);
        resolve(settle ? settle(value) : (value as unknown as R));
      },
      (error: unknown) => {
        replyDeadlines.remove(deadline);
        reject(error);
      },
    );
  });
}
