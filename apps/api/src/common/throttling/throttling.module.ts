import { Module } from '@nestjs/common';
import { PublicRouteLimit } from './public-route-limit';
import { UserRateLimiter } from './rate-limiter';

/**
 * The per-user purchase rate limit (RATE_LIMIT_PER_SECOND) and the per-address budgets of public
 * routes (PUBLIC_READS_PER_SECOND_PER_ADDRESS), shared across instances through Redis.
 */
@Module({
  providers: [UserRateLimiter, PublicRouteLimit],
  exports: [UserRateLimiter, PublicRouteLimit],
})
export class ThrottlingModule {}
