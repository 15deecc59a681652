import { Roster } from './roster';

// ioredis reports an unreachable or unusable server through these messages and codes; they
// mean "no answer" (or "not now": a failover, a node loading, a cluster moving slots), unlike a
// script error, which is a bug and is rethrown as it is. The one list of them: the app classifies
// its own Redis failures with isRedisUnreachable too.
const UNREACHABLE = new RegExp(
  [
    'ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN', // socket errors
    "Connection is closed|maxRetriesPerRequest|Reached the max retries|Stream isn't writeable|enableOfflineQueue|Command timed out",
    "Too many Cluster redirections|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available",
    'did not answer within', // NoReplyError
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
  return (
    UNREACHABLE.test(error.message) ||
    NOT_NOW_REPLY.test(error.message) ||
    (typeof code === 'string' && UNREACHABLE.test(code))
  );
}

export class NoReplyError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
  }
}

/**
 * Rejects with NoReplyError when `promise` has not settled within `ms`; a value that comes after
 * that goes to `onLate` (an acquire that came too late gives its lock back). One unref'd timer
 * watches every pending reply (a timer per command cost more than the rest of an acquire's client
 * work); a pending reply keeps a process alive no more than the driver's socket does.
 */
export function withReplyTimeout<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  onLate?: (value: T) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const entry: Pending = {
      at: performance.now() + ms,
      slot: -1,
      expire: () => reject(new NoReplyError(what, Math.round(ms))),
    };
    watchReply(entry);
    promise.then(
      (value) => (pending.delete(entry) ? resolve(value) : onLate?.(value)),
      (error: unknown) => {
        pending.delete(entry);
        reject(error);
      },
    );
  });
}

type Pending = { at: number; slot: number; expire: () => void };
const pending = new Roster<Pending>();
let sweepAt = Number.POSITIVE_INFINITY;
let sweep: NodeJS.Timeout | undefined;

function watchReply(entry: Pending): void {
  pending.add(entry);
  if (entry.at >= sweepAt) return;
  clearTimeout(sweep);
  sweepAt = entry.at;
  sweep = setTimeout(expireReplies, Math.max(0, entry.at - performance.now()));
  sweep.unref();
}

function expireReplies(): void {
  sweepAt = Number.POSITIVE_INFINITY;
  const at = performance.now();
  const later: Pending[] = [];
  for (const entry of pending.items.splice(0)) {
    entry.slot = -1;
    if (entry.at <= at) entry.expire();
    else later.push(entry);
  }
  later.forEach(watchReply);
}
