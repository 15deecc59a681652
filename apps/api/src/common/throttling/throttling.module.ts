import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Cluster } from 'ioredis';
import type { RedisConnection } from '../redis/redis-client.factory';
import { TypedConfigService } from '../../config/app-config.module';
import { REDIS_CLIENT } from '../redis/redis.constants';

@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [ConfigService, REDIS_CLIENT],
      useFactory: (config: TypedConfigService, redis: RedisConnection) => ({
        throttlers: [{ name: 'purchase', ttl: 1000, limit: config.get('http', { infer: true }).rateLimitPerSecond }],
        // Its counters use their own {hash tags}, so its scripts run on a Cluster too.
        storage: redis instanceof Cluster ? new ThrottlerStorageRedisService(redis) : new ThrottlerStorageRedisService(redis),
      }),
    }),
  ],
  exports: [ThrottlerModule],
})
export class ThrottlingModule {}
