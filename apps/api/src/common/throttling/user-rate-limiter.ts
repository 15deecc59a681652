import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../../config/app-config.module';
import { connectQuietly, createRedisConnection, RedisConnection } from '../redis/redis-client.factory';
import { counterFor, RateCounter } from './rate-counters';
import { retryAfterSeconds, windowAt } from './rate-window';

export const RATE_LIMIT_WINDOW_MS = 1000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterS: number };

/**
 * A per-caller limit shared by every instance: a counter per caller and one-second window in
 * Redis (`<prefix>rate:{<tracker>}:<window>`), windows aligned on the clock so instances count
 * into the same key, each key expiring a window after its own (rate-counters.ts does the Redis
 * side: one batched script call per event-loop turn on one server, INCR/PEXPIRE on a Cluster).
 */
export class WindowRateLimiter {
  constructor(
    private readonly counter: RateCounter,
    private readonly keyPrefix: string,
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(tracker: string): Promise<RateDecision> {
    const { index, msLeft } = windowAt(this.now(), RATE_LIMIT_WINDOW_MS);
    const key = `${this.keyPrefix}rate:{${tracker}}:${index}`;
    const count = await this.counter.hit(key, 2 * RATE_LIMIT_WINDOW_MS);
    return count <= this.limit ? { allowed: true } : { allowed: false, retryAfterS: retryAfterSeconds(msLeft) };
  }
}

/** The app's limiter, on a Redis connection of its own (same topology as REDIS_CLIENT). */
@Injectable()
export class UserRateLimiter extends WindowRateLimiter implements OnApplicationShutdown {
  private readonly connection: RedisConnection;

  constructor(@Inject(ConfigService) config: TypedConfigService) {
    const redis = config.get('redis', { infer: true });
    const connection = createRedisConnection(redis, 'flashsale-rate-limit');
    super(counterFor(connection), redis.keyPrefix, config.get('http', { infer: true }).rateLimitPerSecond);
    this.connection = connection;
    void connectQuietly(connection);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
