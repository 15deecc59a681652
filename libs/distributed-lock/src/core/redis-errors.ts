// ioredis reports an unreachable or unusable server through these messages and codes; they
// mean "no answer" (or "not now": a failover, a node loading, a cluster moving slots), unlike a
// script error, which is a bug and is rethrown as it is. The one list of them: the app classifies
// its own Redis failures with isRedisUnreachable too.
const UNREACHABLE = new RegExp(
  [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'EAI_AGAIN',
    'Connection is closed',
    'maxRetriesPerRequest',
    'Reached the max retries',
    "Stream isn't writeable",
    'enableOfflineQueue',
    'Command timed out',
    'Too many Cluster redirections',
    "Cluster isn't ready",
    'Failed to refresh slots cache',
    'None of startup nodes is available',
    'did not answer within',
  ].join('|'),
  'i',
);
// Redis' own error replies for a server that cannot serve now; matched as written (upper case),
// so that an ordinary word in another message ("removed", "loading") does not.
const NOT_NOW_REPLY = /\b(CLUSTERDOWN|TRYAGAIN|MOVED|MASTERDOWN|READONLY|NOREPLICAS|LOADING)\b/;

/** Whether a Redis failure means "unreachable now, try again later" rather than a bug. */
export function isRedisUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return UNREACHABLE.test(error.message) || NOT_NOW_REPLY.test(error.message) || (typeof code === 'string' && UNREACHABLE.test(code));
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
