import { Module } from '@nestjs/common';
import { PublicRouteLimit } from './public-route-limit';
import { RateClock, UserRateLimiter } from './rate-limiter';

/**
 * The per-user purchase rate limit (RATE_LIMIT_PER_SECOND) and the per-address budgets of public
 * routes (PUBLIC_READS_PER_SECOND_PER_ADDRESS), shared across instances through Redis, and the
 * clock all of the app's rate windows are read from.
 */
@Module({
  providers: [RateClock, UserRateLimiter, PublicRouteLimit],
  exports: [RateClock, UserRateLimiter, PublicRouteLimit],
})
export class ThrottlingModule {}
