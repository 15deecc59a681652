import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../../config/app-config.module';
import { connectQuietly, createRedisConnection, RedisConnection } from '../redis/redis-client.factory';
import { retryAfterSeconds, windowAt } from './rate-window';

export const RATE_LIMIT_WINDOW_MS = 1000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterS: number };

/** The Redis side of the limiter: one INCR and one PEXPIRE per hit. */
export interface RateCounterStore {
  incr(key: string): Promise<number>;
  pexpire(key: string, ms: number): Promise<unknown>;
}

/**
 * A per-caller limit shared by every instance: a counter per caller and one-second window in
 * Redis (`<prefix>rate:{<tracker>}:<window>`), windows aligned on the clock so instances count
 * into the same key. A hit is two plain commands (INCR, then PEXPIRE so the key outlives its
 * window only briefly) on a connection of its own with auto-pipelining: the commands of every
 * purchase in one event-loop turn leave in one write and Redis reads them in one go. That costs
 * Redis a few µs per purchase, where a Lua script sent per purchase cost several times more.
 */
export class WindowRateLimiter {
  constructor(
    private readonly store: RateCounterStore,
    private readonly keyPrefix: string,
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(tracker: string): Promise<RateDecision> {
    const { index, msLeft } = windowAt(this.now(), RATE_LIMIT_WINDOW_MS);
    const key = `${this.keyPrefix}rate:{${tracker}}:${index}`;
    const count = await this.store.incr(key);
    // Only the first hit of a window sets the expiry; a key whose PEXPIRE was lost is one stale
    // counter nobody reads again (the window index moves on).
    if (count === 1) void this.store.pexpire(key, msLeft + RATE_LIMIT_WINDOW_MS).catch(() => undefined);
    return count <= this.limit ? { allowed: true } : { allowed: false, retryAfterS: retryAfterSeconds(msLeft) };
  }
}

/** The app's limiter, on its own auto-pipelined Redis connection (same topology as REDIS_CLIENT). */
@Injectable()
export class UserRateLimiter extends WindowRateLimiter implements OnApplicationShutdown {
  private readonly connection: RedisConnection;

  constructor(@Inject(ConfigService) config: TypedConfigService) {
    const redis = config.get('redis', { infer: true });
    const connection = createRedisConnection(redis, 'flashsale-rate-limit', { enableAutoPipelining: true });
    super(connection, redis.keyPrefix, config.get('http', { infer: true }).rateLimitPerSecond);
    this.connection = connection;
    void connectQuietly(connection);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
