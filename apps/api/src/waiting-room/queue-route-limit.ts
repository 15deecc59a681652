import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AuthUser } from '../auth/auth.types';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { isRedisUnavailable } from '../common/errors/dependency-errors';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { counterFor } from '../common/throttling/rate-counters';
import { WindowRateLimiter } from '../common/throttling/user-rate-limiter';
import { TypedConfigService } from '../config/app-config.module';
import { TicketSigner } from './ticket-signer';

const WARN_EVERY_MS = 10_000;

/**
 * Budgets of the queue routes, shared by every instance through Redis (common/throttling), each
 * route its own: a join per user (RATE_LIMIT_PER_SECOND); a poll per ticket, the credential of
 * the one client holding it (RATE_LIMIT_PER_SECOND: a waiting client is told to poll at most about
 * twice a second); the public summary per client address (QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS).
 * A poll whose ticket does not verify is not counted: it is refused (400) without touching Redis.
 * Skipped, with a warning, while Redis is unreachable: the queue answers 503 then anyway.
 */
@Injectable()
export class QueueRouteLimit {
  private readonly log = new Logger(QueueRouteLimit.name);
  private readonly perCaller: WindowRateLimiter;
  private readonly perAddress: WindowRateLimiter;
  private lastWarnAt = 0;

  constructor(
    @Inject(REDIS_CLIENT) redis: RedisConnection,
    prefix: RedisKeyPrefix,
    @Inject(ConfigService) config: TypedConfigService,
    private readonly signer: TicketSigner,
  ) {
    const counter = counterFor(redis);
    this.perCaller = new WindowRateLimiter(counter, prefix.value, config.get('http', { infer: true }).rateLimitPerSecond);
    this.perAddress = new WindowRateLimiter(counter, prefix.value, config.get('waitingRoom', { infer: true }).summaryPerSecondPerAddress);
  }

  join(user: AuthUser): Promise<void> {
    return this.spend(this.perCaller, 'queue.join', `user:${user.id}`);
  }

  poll(productId: string, rawTicket: string): Promise<void> {
    const claims = this.signer.readTicket(rawTicket);
    if (!claims || claims.productId !== productId) return Promise.resolve();
    return this.spend(this.perCaller, 'queue.poll', `ticket:${productId}:${claims.epoch}:${claims.number}`);
  }

  summary(address: string | undefined): Promise<void> {
    return this.spend(this.perAddress, 'queue.summary', `ip:${address ?? 'unknown'}`);
  }

  private async spend(limiter: WindowRateLimiter, budget: string, caller: string): Promise<void> {
    let decision;
    try {
      decision = await limiter.hit(`${budget}:${caller}`);
    } catch (error) {
      if (!isRedisUnavailable(error)) throw error;
      if (Date.now() - this.lastWarnAt >= WARN_EVERY_MS) {
        this.lastWarnAt = Date.now();
        this.log.warn(`${budget} rate limit skipped: redis unavailable`);
      }
      return;
    }
    if (!decision.allowed) throw new AppException(ErrorCode.RateLimited, `too many ${budget} requests, slow down`, decision.retryAfterS);
  }
}
