import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException } from '../errors/app.exception';
import { ErrorCode } from '../errors/error-code';
import { skipWhenRedisDown } from '../errors/dependency-errors';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../../config/app-config.module';
import type { RedisConnection } from '../redis/redis-client.factory';
import { REDIS_CLIENT } from '../redis/redis.constants';
import { RedisKeyPrefix } from '../redis/redis-keys';
import { counterFor, RateCounter } from './rate-counters';
import { retryAfterSeconds, windowAt } from './rate-window';

export const RATE_LIMIT_WINDOW_MS = 1000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterS: number };

/**
 * A per-caller limit shared by every instance: a counter per caller and one-second window in
 * Redis (`<prefix>rate:{<tracker>}:<window>`), windows aligned on the clock so instances count
 * into the same key, each key expiring a window after its own (rate-counters.ts does the Redis
 * side: one batched script call per event-loop turn on one server, INCR/PEXPIRE on a Cluster).
 */
export class WindowRateLimiter {
  constructor(
    private readonly counter: RateCounter,
    private readonly keyPrefix: string,
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(tracker: string): Promise<RateDecision> {
    const { index, msLeft } = windowAt(this.now(), RATE_LIMIT_WINDOW_MS);
    const key = `${this.keyPrefix}rate:{${tracker}}:${index}`;
    const count = await this.counter.hit(key, 2 * RATE_LIMIT_WINDOW_MS);
    return count <= this.limit ? { allowed: true } : { allowed: false, retryAfterS: retryAfterSeconds(msLeft) };
  }
}

/** The app's limiter, on the app's Redis connection. */
@Injectable()
export class UserRateLimiter extends WindowRateLimiter {
  constructor(@Inject(REDIS_CLIENT) redis: RedisConnection, prefix: RedisKeyPrefix, @Inject(ConfigService) config: TypedConfigService) {
    super(counterFor(redis), prefix.value, config.get('http', { infer: true }).rateLimitPerSecond);
  }
}

/**
 * A rate budget of the API: `spend` counts one request against a tracker and throws 429
 * RATE_LIMITED (with Retry-After) past the budget. While Redis is unreachable the budget is
 * skipped (skipWhenRedisDown): no invariant depends on a rate limit, Postgres enforces them all.
 */
export class RateBudget {
  constructor(
    private readonly limiter: WindowRateLimiter,
    private readonly log: Logger,
    /** What the budget is for, in the 429's message and the skip warning. */
    private readonly what: string,
  ) {}

  async spend(tracker: string): Promise<void> {
    const decision = await skipWhenRedisDown(() => this.limiter.hit(tracker), { log: this.log, what: `${this.what} rate limit` });
    if (decision && !decision.allowed) throw new AppException(ErrorCode.RateLimited, `too many ${this.what}, slow down`, decision.retryAfterS);
  }
}
