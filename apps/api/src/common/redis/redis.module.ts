import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { TypedConfigService } from '../../config/app-config.module';
import type { AppConfig } from '../../config/app-config';
import { ConfigService } from '@nestjs/config';
import { REDIS_CLIENT, REDLOCK_CLIENTS } from './redis.constants';
import { connectQuietly, createRedisClient, createRedisConnection, RedisConnection } from './redis-client.factory';

/**
 * Anyone who reaches a Redis without a password can admit themselves from the waiting room, reset
 * rate counters or flip sold-out flags. Production says so loudly at start-up (a network that only
 * the API reaches may be reason enough to run without one, so it does not refuse).
 */
function warnAboutOpenNodes(redis: AppConfig['redis']): void {
  const open: string[] = [];
  if (redis.mode === 'standalone' && !new URL(redis.url).password) open.push('REDIS_URL');
  if (redis.mode !== 'standalone' && !redis.auth.password) open.push('REDIS_PASSWORD');
  if (redis.mode === 'sentinel' && !redis.auth.sentinelPassword) open.push('REDIS_SENTINEL_PASSWORD');
  if (redis.redlockUrls.some((url) => !new URL(url).password)) open.push('REDLOCK_URLS');
  if (open.length) new Logger('RedisModule').warn(`Redis without a password (${open.join(', ')}): anyone on its network can change queues, limits and sold-out flags`);
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [ConfigService],
      useFactory: async (config: TypedConfigService) => {
        const redis = config.get('redis', { infer: true });
        if (config.get('nodeEnv', { infer: true }) === 'production') warnAboutOpenNodes(redis);
        const client = createRedisConnection(redis, 'flashsale-api');
        await connectQuietly(client);
        return client;
      },
    },
    {
      provide: REDLOCK_CLIENTS,
      inject: [ConfigService],
      useFactory: async (config: TypedConfigService) => {
        const { redlockUrls, commandTimeoutMs } = config.get('redis', { infer: true });
        const clients = redlockUrls.map((url, i) => createRedisClient(url, commandTimeoutMs, `flashsale-redlock-${i}`));
        await Promise.all(clients.map((client) => connectQuietly(client)));
        return clients;
      },
    },
  ],
  exports: [REDIS_CLIENT, REDLOCK_CLIENTS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    @Inject(REDLOCK_CLIENTS) private readonly redlock: Redis[],
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.redis, ...this.redlock].map((client: RedisConnection) => client.quit().catch(() => client.disconnect())));
  }
}
