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

export class NoReplyError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`);
  }
}

// Every lock operation waits for its reply under a deadline. One shared sweep finds the overdue
// ones instead of a timer per call: arming and clearing a timer cost more than the rest of an
// uncontended acquire's JavaScript. Deadlines fire up to one sweep late.
const SWEEP_EVERY_MS = 10;

interface Deadline {
  at: number;
  expire(): void;
}

const deadlines = new Set<Deadline>();
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const at = now();
  for (const deadline of deadlines) {
    if (deadline.at <= at) {
      deadlines.delete(deadline);
      deadline.expire();
    }
  }
  if (deadlines.size === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** Rejects with NoReplyError when `promise` has not settled within `ms`. */
export function withReplyTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const deadline: Deadline = { at: now() + ms, expire: () => reject(new NoReplyError(what, ms)) };
    deadlines.add(deadline);
    sweeper ??= setInterval(sweep, SWEEP_EVERY_MS);
    promise.then(
      (value) => {
        deadlines.delete(deadline);
        resolve(value);
      },
      (error: unknown) => {
        deadlines.delete(deadline);
        reject(error);
      },
    );
  });
}
