import { Module } from '@nestjs/common';
import { RedisKeyPrefix } from '../redis/redis-keys';
import { UserRateLimiter } from './rate-limiter';

/** The per-user purchase rate limit (RATE_LIMIT_PER_SECOND), shared across instances through Redis. */
@Module({
  providers: [UserRateLimiter, RedisKeyPrefix],
  exports: [UserRateLimiter],
})
export class ThrottlingModule {}
