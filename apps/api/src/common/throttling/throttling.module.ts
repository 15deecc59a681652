import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import Redis from 'ioredis';
import { TypedConfigService } from '../../config/app-config.module';
import { REDIS_CLIENT } from '../redis/redis.constants';

@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [ConfigService, REDIS_CLIENT],
      useFactory: (config: TypedConfigService, redis: Redis) => ({
        throttlers: [{ name: 'purchase', ttl: 1000, limit: config.get('http', { infer: true }).rateLimitPerSecond }],
        storage: new ThrottlerStorageRedisService(redis),
      }),
    }),
  ],
  exports: [ThrottlerModule],
})
export class ThrottlingModule {}
