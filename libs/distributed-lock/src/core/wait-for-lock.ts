import type { AttemptRequest, AttemptResult, LeaseRef, LockBackend } from './backends/lock-backend';
import type { LockNaming } from './lock-names';
import { withReplyTimeout } from './redis-errors';
import { driftMs, now } from './timing';
import { WakeSignal, type WakeupHub } from './wakeup-hub';

/** A lock taken: by a try, or `handedOver` by a releasing holder's script (with `block` fences after its own, `queued` waiters left). */
export type Acquired = Extract<AttemptResult, { acquired: true }> & {
  handedOver?: true;
  block?: number;
  queued?: number;
};

export type WaitSettings = { backend: LockBackend; hub: WakeupHub; naming: LockNaming; driftFactor: number };

// A queued waiter is handed the lock and told so by pub/sub; it polls only in case that
// message is lost, so rarely. A waiter that is not queued (Redlock, multi-key) backs off
// exponentially from a few ms. Both never sleep past the holder's lease.
const QUEUED_POLL_MS = 400;
const FIRST_BACKOFF_MS = 10;
const MAX_BACKOFF_MS = 200;
// A queue entry not refreshed for this long belongs to a dead waiter and is skipped.
const QUEUE_WINDOW_MS = 3 * QUEUED_POLL_MS;
// Slack beyond waitMs for Redis to answer before it counts as unreachable.
const REPLY_GRACE_MS = 1000;
// A waiter a releasing holder queued knows nothing of the current holder's lease (a negative ttl).
const NOT_YET_TRIED: AttemptResult = { acquired: false, holderTtlMs: -1 };
const TOO_LATE: AttemptResult = { acquired: false, holderTtlMs: 0 };

/** How long a queue entry stays live for a waiter with `remainingMs` left (0: do not queue). */
export function queueWindowMs(remainingMs: number): number {
  return remainingMs > 0 ? Math.ceil(Math.min(remainingMs, QUEUE_WINDOW_MS)) + 50 : 0;
}

/** A uniformly jittered delay in [ms/2, ms], so that pollers that started together spread out. */
const jitter = (ms: number): number => ms / 2 + Math.random() * (ms / 2);

/**
 * One try, which takes the lock if it is free and else, while time is left, queues the request
 * for a handoff in the same step; then, until `deadline`, waits for a handoff or a release and
 * tries again (`queuedSince`: a holder of this process queued it already: only wait). Resolves
 * undefined when the time is up; rejects with the driver's error when Redis does not answer.
 */
export async function takeOrWait(
  settings: WaitSettings,
  request: AttemptRequest,
  deadline: number,
  queuedSince?: number,
  signal?: AbortSignal,
): Promise<Acquired | undefined> {
  const { backend } = settings;
  let result = NOT_YET_TRIED;
  let sentAt = queuedSince ?? now();
  if (queuedSince === undefined) {
    request.queueForMs = queueWindowMs(deadline - sentAt);
    result = await attemptOnce(backend, request, sentAt, deadline, () => backend.attempt(request));
    if (result.acquired) return result;
    // No time left to wait (tryAcquire, or a turn that came too late): nothing was queued.
    if (request.queueForMs === 0) return undefined;
  }
  const queued = backend.cancelWait !== undefined && request.keys.length === 1;
  const attempt: AttemptRequest = { ...request, mayBeQueued: true };
  const attemptFor = (remaining: number): AttemptRequest => {
    // A queued waiter's entry stays live this long unless the next attempt refreshes it.
    attempt.queueForMs = queueWindowMs(remaining);
    return attempt;
  };

  const inbox = new WakeSignal(request.token);
  const stopWatching = request.keys.map((key) => settings.hub.watch(settings.naming.namesOf(key).channel, inbox));
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
        if (validUntil > now())
          return {
            acquired: true,
            fence: wakeup.fence,
            validUntil,
            handedOver: true,
            block: wakeup.block,
            queued: wakeup.queued,
          };
      }
      if (wakeup.kind === 'timer') backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      sentAt = now();
      result = await attemptOnce(backend, attempt, sentAt, deadline, () =>
        backend.attempt(attemptFor(deadline - sentAt)),
      );
      if (result.acquired) return result;
    }
    if (!queued || !backend.cancelWait) return undefined;
    const final = await backend.cancelWait(attemptFor(0));
    return final.acquired && final.validUntil > now() ? final : undefined;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stopWatching.forEach((stop) => stop());
  }
}

/**
 * One try (`send`, sent at `sentAt`) under a reply deadline: the wait's deadline plus a grace. A
 * reply too late to leave any lease, or after the deadline (the caller gave up), gives the lock
 * back. So does a driver that gives up first (`commandTimeout`, a connection dropped after the
 * write), whose script may still run: a release of our token follows it on the same connection,
 * so Redis runs it right after the acquire if that ever runs (else it is a no-op).
 */
export async function attemptOnce(
  backend: LockBackend,
  request: LeaseRef,
  sentAt: number,
  deadline: number,
  send: () => Promise<AttemptResult>,
): Promise<AttemptResult> {
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
const mayHaveRun = (error: unknown): boolean =>
  error instanceof Error && /Command timed out|Connection is closed|ECONNRESET|EPIPE/i.test(error.message);

/** Past the holder's lease the lock is free: no point sleeping longer. */
function untilLeaseEnds(result: AttemptResult): number {
  if (result.acquired || result.holderTtlMs < 0) return Number.POSITIVE_INFINITY;
  return result.holderTtlMs + 2;
}
