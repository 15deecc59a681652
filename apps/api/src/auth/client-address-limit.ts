import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { counterFor, RATE_LIMIT_WINDOW_MS, RateBudget, rateClock, retryAfterSeconds, WindowRateLimiter, windowAt } from '../common/throttling/rate-limiter';
import { TypedConfigService } from '../config/app-config.module';

const WHAT = 'requests without a valid token from this address';
const MAX_REFUSED_ADDRESSES = 10_000;

/**
 * A budget per client address, shared by every instance through Redis, for requests that have no
 * user to be counted against (a missing or bad token). The address is the one Fastify derives:
 * the socket's peer, or with TRUST_PROXY the client a trusted balancer forwarded. Skipped, with a
 * warning, while Redis is unreachable: no invariant depends on it.
 *
 * An address refused here stays refused on this instance until its window ends, without asking
 * Redis again (`refusedNow`): the caller checks that before spending a signature check on a token
 * from it, so past its budget an address costs a map lookup, not RSA verifications.
 */
@Injectable()
export class ClientAddressLimit {
  private readonly budget: RateBudget;
  private readonly refusedUntil = new Map<string, number>();

  constructor(@Inject(REDIS_CLIENT) redis: RedisConnection, prefix: RedisKeyPrefix, @Inject(ConfigService) config: TypedConfigService) {
    const limiter = new WindowRateLimiter(counterFor(redis), prefix.value, config.get('auth', { infer: true }).failuresPerSecondPerAddress);
    this.budget = new RateBudget(limiter, new Logger(ClientAddressLimit.name), WHAT);
  }

  /** Counts one request of `budget` from `address`; throws 429 RATE_LIMITED (with Retry-After) past the budget. */
  async spend(budget: string, address: string | undefined): Promise<void> {
    const tracker = trackerOf(budget, address);
    try {
      await this.budget.spend(tracker);
    } catch (error) {
      if (error instanceof AppException && error.code === ErrorCode.RateLimited) this.remember(tracker);
      throw error;
    }
  }

  /** The 429 to answer at once when this instance saw `address` refused in the current window; else undefined. */
  refusedNow(budget: string, address: string | undefined): AppException | undefined {
    const tracker = trackerOf(budget, address);
    const until = this.refusedUntil.get(tracker);
    if (until === undefined) return undefined;
    const nowMs = rateClock.now();
    if (until <= nowMs) {
      this.refusedUntil.delete(tracker);
      return undefined;
    }
    return new AppException(ErrorCode.RateLimited, `too many ${WHAT}, slow down`, retryAfterSeconds(until - nowMs));
  }

  private remember(tracker: string): void {
    const nowMs = rateClock.now();
    if (this.refusedUntil.size >= MAX_REFUSED_ADDRESSES) this.refusedUntil.clear();
    this.refusedUntil.set(tracker, nowMs + windowAt(nowMs, RATE_LIMIT_WINDOW_MS).msLeft);
  }
}

const trackerOf = (budget: string, address: string | undefined): string => `${budget}:ip:${address ?? 'unknown'}`;
