import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { isRedisUnavailable } from '../common/errors/dependency-errors';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { counterFor } from '../common/throttling/rate-counters';
import { WindowRateLimiter } from '../common/throttling/user-rate-limiter';
import { TypedConfigService } from '../config/app-config.module';

const WARN_EVERY_MS = 10_000;

/**
 * A budget per client address, shared by every instance through Redis, for requests that have no
 * user to be counted against (a missing or bad token). The address is the one Fastify derives:
 * the socket's peer, or with TRUST_PROXY the client a trusted balancer forwarded. Skipped, with a
 * warning, while Redis is unreachable: no invariant depends on it.
 */
@Injectable()
export class ClientAddressLimit {
  private readonly log = new Logger(ClientAddressLimit.name);
  private readonly limiter: WindowRateLimiter;
  private lastWarnAt = 0;

  constructor(@Inject(REDIS_CLIENT) redis: RedisConnection, prefix: RedisKeyPrefix, @Inject(ConfigService) config: TypedConfigService) {
    this.limiter = new WindowRateLimiter(counterFor(redis), prefix.value, config.get('auth', { infer: true }).failuresPerSecondPerAddress);
  }

  /** Counts one request of `budget` from `address`; throws 429 RATE_LIMITED (with Retry-After) past the budget. */
  async spend(budget: string, address: string | undefined): Promise<void> {
    let decision;
    try {
      decision = await this.limiter.hit(`${budget}:ip:${address ?? 'unknown'}`);
    } catch (error) {
      if (!isRedisUnavailable(error)) throw error;
      if (Date.now() - this.lastWarnAt >= WARN_EVERY_MS) {
        this.lastWarnAt = Date.now();
        this.log.warn(`${budget} rate limit skipped: redis unavailable`);
      }
      return;
    }
    if (!decision.allowed) throw new AppException(ErrorCode.RateLimited, 'too many requests without a valid token from this address, slow down', decision.retryAfterS);
  }
}
