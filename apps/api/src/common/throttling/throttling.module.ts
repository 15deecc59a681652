import { Module } from '@nestjs/common';
import { InventoryModule } from '../../inventory/inventory.module';
import { RedisKeyPrefix } from '../redis/redis-keys';
import { UserRateLimiter } from './user-rate-limiter';
import { UserThrottlerGuard } from './user-throttler.guard';

/** The per-user purchase rate limit (RATE_LIMIT_PER_SECOND), shared across instances through Redis. */
@Module({
  imports: [InventoryModule],
  providers: [UserRateLimiter, UserThrottlerGuard, RedisKeyPrefix],
  exports: [UserRateLimiter, UserThrottlerGuard],
})
export class ThrottlingModule {}
