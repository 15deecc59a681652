import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { TypedConfigService } from '../../config/app-config.module';
import type { AppConfig } from '../../config/app-config';
import { openNodes } from '../../config/redis-config';
import { ConfigService } from '@nestjs/config';
import { REDIS_CLIENT, REDLOCK_CLIENTS } from './redis.constants';
import { RedisHold } from './redis-hold';
import { RedisKeyPrefix } from './redis-keys';
import { connectQuietly, createRedisClient, createRedisConnection, RedisConnection } from './redis-client.factory';

/**
 * Anyone who reaches a Redis without a password can admit themselves from the waiting room, reset
 * rate counters or flip sold-out flags. Production refuses to start so (config/redis-config.ts)
 * unless REDIS_ALLOW_NO_AUTH=true says a network only the API reaches is reason enough; then it
 * still says so at every start-up.
 */
function warnAboutOpenNodes(redis: AppConfig['redis']): void {
  const open = openNodes(redis);
  if (open.length)
    new Logger('RedisModule').warn(
      `Redis without a password (${open.join(', ')}), allowed by REDIS_ALLOW_NO_AUTH=true: anyone on its network can change queues, limits and sold-out flags`,
    );
}

/** The app's Redis connections, the prefix of its keys and its memory of an unreachable Redis, for every module. */
@Global()
@Module({
  providers: [
    RedisKeyPrefix,
    RedisHold,
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
        const { redlockNodes, commandTimeoutMs } = config.get('redis', { infer: true });
        const clients = redlockNodes.map((node, i) =>
          createRedisClient(node, commandTimeoutMs, `flashsale-redlock-${i}`),
        );
        await Promise.all(clients.map((client) => connectQuietly(client)));
        return clients;
      },
    },
  ],
  exports: [REDIS_CLIENT, REDLOCK_CLIENTS, RedisKeyPrefix, RedisHold],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    @Inject(REDLOCK_CLIENTS) private readonly redlock: Redis[],
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      [this.redis, ...this.redlock].map((client: RedisConnection) => client.quit().catch(() => client.disconnect())),
    );
  }
}
