import { Injectable } from '@nestjs/common';
import { isRedisUnavailable } from '../errors/dependency-errors';

/** How long after Redis was found unreachable work that may skip it does so without asking. */
export const REDIS_DOWN_HOLD_MS = 1000;
const WARN_EVERY_MS = 10_000;

/** What a skipped Redis call is (the warning's words) and where the warning goes. */
export interface SkipContext {
  log: { warn(message: string): void };
  what: string;
}

/**
 * The policy for work that may skip an unreachable Redis (a rate limit, the sold-out flag, an
 * Idempotency-Key marker: no invariant depends on them), and the app's memory of the last time it
 * was found so. A Redis that hangs instead of refusing costs each call the whole command timeout,
 * and a purchase's several such calls would eat its deadline: for REDIS_DOWN_HOLD_MS after one met
 * it, skippable work skips Redis without asking; then the next call asks again. The product lock's
 * own choice (LOCK_FALLBACK) is the lock module's `whenUnreachable`.
 */
@Injectable()
export class RedisHold {
  private downUntil = 0;
  private readonly lastWarnedAt = new Map<string, number>();

  noteDown(now = Date.now()): void {
    this.downUntil = now + REDIS_DOWN_HOLD_MS;
  }

  /** Whether a Redis call met an unreachable Redis within the last REDIS_DOWN_HOLD_MS. */
  recentlyDown(now = Date.now()): boolean {
    return now < this.downUntil;
  }

  /** An unreachable Redis returns (warned at most once per 10 s per `what`); any other failure is thrown. */
  skip(error: unknown, context: SkipContext): void {
    if (!isRedisUnavailable(error)) throw error;
    const now = Date.now();
    this.noteDown(now);
    if (now - (this.lastWarnedAt.get(context.what) ?? 0) < WARN_EVERY_MS) return;
    this.lastWarnedAt.set(context.what, now);
    context.log.warn(`${context.what} skipped: redis unavailable`);
  }

  /** `skip` as a Redis call's rejection handler (`call.catch(handler)`), answering `fallback`. */
  fallback<F>(context: SkipContext, fallback: F): (error: unknown) => F {
    return (error) => {
      this.skip(error, context);
      return fallback;
    };
  }
}
