import type { AttemptRequest, AttemptResult, LeaseRef, LockBackend } from './backends/lock-backend';
import { withReplyTimeout } from './redis-errors';
import { driftMs, jitter, now } from './timing';
import { WakeSignal } from './wake-signal';
import type { WakeupHub } from './wakeup-hub';

export type Acquired = Extract<AttemptResult, { acquired: true }> & { handedOver: boolean };

export interface WaitSettings {
  backend: LockBackend;
  hub: WakeupHub;
  driftFactor: number;
}

// A queued waiter is handed the lock and told so by pub/sub; it polls only in case that
// message is lost, so rarely. A waiter that is not queued (Redlock, multi-key) backs off
// exponentially from a few ms. Both never sleep past the holder's lease.
const QUEUED_POLL_MS = 400;
const FIRST_BACKOFF_MS = 10;
const MAX_BACKOFF_MS = 200;
// A queue entry not refreshed for this long belongs to a dead waiter and is skipped.
const QUEUE_WINDOW_MS = 3 * QUEUED_POLL_MS;

/** How long a queue entry stays live for a waiter with `remainingMs` left (0: do not queue). */
export function queueWindowMs(remainingMs: number): number {
  return remainingMs > 0 ? Math.ceil(Math.min(remainingMs, QUEUE_WINDOW_MS)) + 50 : 0;
}
// Slack beyond waitMs for Redis to answer before it counts as unreachable.
const REPLY_GRACE_MS = 1000;
// A waiter that starts already queued knows nothing of the holder's lease (a negative ttl).
const NOT_YET_TRIED: AttemptResult = { acquired: false, holderTtlMs: -1 };
const TOO_LATE: AttemptResult = { acquired: false, holderTtlMs: 0 };

/**
 * Tries to take the lock, and while `waitMs` lasts, waits for a handoff or a release and tries
 * again. Resolves undefined when the time is up; rejects with the driver's error when Redis
 * does not answer. `queuedSince`: the token was put in the handoff queue at that time (by a
 * releasing holder of this process), so the wait starts without a first try.
 */
export async function waitForLock(
  settings: WaitSettings,
  request: Omit<AttemptRequest, 'queueForMs'>,
  waitMs: number,
  queuedSince?: number,
  signal?: AbortSignal,
): Promise<Acquired | undefined> {
  const deadline = now() + waitMs;
  const queued = settings.backend.handsOff && request.keys.length === 1;
  // One request object, its queue window updated before each attempt.
  const attempt: AttemptRequest = { keys: request.keys, token: request.token, ttlMs: request.ttlMs, fair: request.fair, queueForMs: 0, mayBeQueued: request.mayBeQueued };
  const attemptFor = (remaining: number): AttemptRequest => {
    // A queued waiter's entry stays live this long unless the next attempt refreshes it.
    attempt.queueForMs = queueWindowMs(remaining);
    return attempt;
  };

  let sentAt = queuedSince ?? now();
  let result: AttemptResult = queuedSince === undefined ? await attemptOnce(settings.backend, attempt, sentAt, deadline, () => settings.backend.attempt(attemptFor(waitMs))) : NOT_YET_TRIED;
  if (result.acquired || waitMs <= 0) return result.acquired ? { ...result, handedOver: false } : undefined;
  attempt.mayBeQueued = true;

  const inbox = new WakeSignal(request.token);
  const stopWatching = request.keys.map((key) => settings.hub.watch(settings.backend.channelOf(key), inbox));
  // An abort ends the wait as the deadline would (the caller then reports the abort).
  const onAbort = () => inbox.wake({ kind: 'aborted' });
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let backoff = FIRST_BACKOFF_MS;
    for (let remaining = deadline - now(); remaining > 0 && !signal?.aborted; remaining = deadline - now()) {
      const pause = queued ? jitter(QUEUED_POLL_MS) : jitter(backoff);
      const wakeup = await inbox.next(Math.min(pause, untilLeaseEnds(result), remaining));
      if (wakeup.kind === 'aborted') break;
      if (wakeup.kind === 'handedOver') {
        // The handoff happened after our last attempt was sent: its lease runs from no earlier.
        const validUntil = sentAt + request.ttlMs - driftMs(request.ttlMs, settings.driftFactor);
        if (validUntil > now()) return { acquired: true, fence: wakeup.fence, validUntil, handedOver: true };
      }
      if (wakeup.kind === 'timer') backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      sentAt = now();
      result = await attemptOnce(settings.backend, attempt, sentAt, deadline, () => settings.backend.attempt(attemptFor(deadline - sentAt)));
      if (result.acquired) return { ...result, handedOver: false };
    }
    if (!queued) return undefined;
    const last = await settings.backend.cancelWait(attemptFor(0));
    return last.acquired && last.validUntil > now() ? { ...last, handedOver: false } : undefined;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stopWatching.forEach((stop) => stop());
  }
}

/**
 * One try (`send`, sent at `sentAt`) under a reply deadline: the wait's deadline plus a grace. A
 * reply that comes too late to leave any of the lease counts as a failed try, and the lock it
 * took is given back; so is one that comes after the deadline passed (the caller gave up).
 *
 * The driver may give up first (ioredis' `commandTimeout`, or a connection that drops after the
 * command was written): then the script may still run, and its reply is dropped where nobody can
 * give the lock back. A release of our token follows it on the same connection at once, so Redis
 * runs it right after the acquire, if that ever runs; for a command that never reached Redis it
 * is a no-op. Without it the key would stay locked for a whole lease.
 */
export async function attemptOnce(backend: LockBackend, request: LeaseRef, sentAt: number, deadline: number, send: () => Promise<AttemptResult>): Promise<AttemptResult> {
  const giveBack = () => backend.release(request).catch(() => false);
  const allowedMs = Math.max(0, deadline - sentAt) + REPLY_GRACE_MS;
  const sent = send().catch((error: unknown) => {
    if (mayHaveRun(error)) void giveBack();
    throw error;
  });
  const result = await withReplyTimeout(sent, allowedMs, 'Redis', (late) => void (late.acquired && giveBack()));
  if (!result.acquired || result.validUntil > now()) return result;
  await giveBack();
  return TOO_LATE;
}

/** A failure after which the command may still have run in Redis (it was written, no reply read). */
function mayHaveRun(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /Command timed out|Connection is closed|ECONNRESET|EPIPE/i.test(message);
}

/** Past the holder's lease the lock is free: no point sleeping longer. */
function untilLeaseEnds(result: AttemptResult): number {
  if (result.acquired || result.holderTtlMs < 0) return Number.POSITIVE_INFINITY;
  return result.holderTtlMs + 2;
}
