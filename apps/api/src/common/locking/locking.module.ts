import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DistributedLockModule } from '@app/distributed-lock';
import Redis from 'ioredis';
import type { RedisConnection } from '../redis/redis-client.factory';
import { TypedConfigService } from '../../config/app-config.module';
import { REDIS_CLIENT, REDLOCK_CLIENTS } from '../redis/redis.constants';

/** The shared lock: Redlock over REDLOCK_URLS when set, else the main Redis (one server, Sentinel or Cluster). */
@Module({
  imports: [
    DistributedLockModule.forRootAsync({
      inject: [ConfigService, REDIS_CLIENT, REDLOCK_CLIENTS],
      useFactory: (config: TypedConfigService, redis: RedisConnection, redlock: Redis[]) => {
        const { ttlMs, waitMs, waitForReplicas, fallback } = config.get('lock', { infer: true });
        return {
          redis: redlock.length >= 3 ? redlock : redis,
          prefix: `${config.get('redis', { infer: true }).keyPrefix}lock:`,
          defaultTtlMs: ttlMs,
          defaultWaitMs: waitMs,
          longHoldWarnMs: ttlMs,
          // Redlock nodes are independent masters; WAIT applies to the main Redis only.
          waitForReplicas: redlock.length >= 3 ? undefined : waitForReplicas,
          // LOCK_FALLBACK: fenced @WithLock methods go on with Postgres alone, or refuse (503).
          whenUnreachable: fallback === 'db' ? 'run-unlocked' : 'throw',
        };
      },
    }),
  ],
})
export class LockingModule {}
