import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { TypedConfigService } from '../../config/app-config.module';
import { ConfigService } from '@nestjs/config';
import { REDIS_CLIENT, REDLOCK_CLIENTS } from './redis.constants';
import { connectQuietly, createRedisClient, createRedisConnection, RedisConnection } from './redis-client.factory';

@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [ConfigService],
      useFactory: async (config: TypedConfigService) => {
        const client = createRedisConnection(config.get('redis', { infer: true }), 'flashsale-api');
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
