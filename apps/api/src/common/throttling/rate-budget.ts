import { Logger } from '@nestjs/common';
import { AppException } from '../errors/app.exception';
import { ErrorCode } from '../errors/error-code';
import { whenRedisDown } from '../errors/dependency-errors';
import { WindowRateLimiter } from './user-rate-limiter';

/**
 * A rate budget of the API: `spend` counts one request against a tracker and throws 429
 * RATE_LIMITED (with Retry-After) past the budget. While Redis is unreachable the budget is
 * skipped, per the one dependency policy (whenRedisDown: "skip"): no invariant depends on a
 * rate limit, Postgres enforces them all.
 */
export class RateBudget {
  constructor(
    private readonly limiter: WindowRateLimiter,
    private readonly log: Logger,
    /** What the budget is for, in the 429's message and the skip warning. */
    private readonly what: string,
  ) {}

  async spend(tracker: string): Promise<void> {
    const decision = await whenRedisDown('skip', () => this.limiter.hit(tracker), { log: this.log, what: `${this.what} rate limit` });
    if (decision && !decision.allowed) throw new AppException(ErrorCode.RateLimited, `too many ${this.what}, slow down`, decision.retryAfterS);
  }
}
