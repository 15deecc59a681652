import { CanActivate, ExecutionContext, Inject, Injectable, Logger, SetMetadata } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
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

const ROUTE_BUDGET = 'orders:routeBudget';
const WARN_EVERY_MS = 10_000;

/** The route's own per-user budget (RATE_LIMIT_PER_SECOND a second), kept apart from every other route's. */
export const RouteBudget = (name: 'order.list' | 'order.get' | 'order.pay' | 'order.cancel' | 'purchase.status') => SetMetadata(ROUTE_BUDGET, name);

/**
 * Per-user rate limit on the order routes, shared by every instance through Redis. A budget per
 * route, so that reading one's orders never spends the budget for paying; counted per caller,
 * so that a caller flooding someone else's order spends only their own. Skipped, with a warning,
 * while Redis is unreachable: no invariant depends on it.
 */
@Injectable()
export class OrderRouteLimit implements CanActivate {
  private readonly log = new Logger(OrderRouteLimit.name);
  private readonly limiter: WindowRateLimiter;
  private lastWarnAt = 0;

  constructor(
    private readonly reflector: Reflector,
    @Inject(REDIS_CLIENT) redis: RedisConnection,
    prefix: RedisKeyPrefix,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.limiter = new WindowRateLimiter(counterFor(redis), prefix.value, config.get('http', { infer: true }).rateLimitPerSecond);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const budget = this.reflector.get<string | undefined>(ROUTE_BUDGET, context.getHandler());
    const request = context.switchToHttp().getRequest<{ user?: AuthUser; ip?: string }>();
    if (!budget) return true;
    const caller = request.user?.id !== undefined ? `user:${request.user.id}` : `ip:${String(request.ip)}`;
    let decision;
    try {
      decision = await this.limiter.hit(`${budget}:${caller}`);
    } catch (error) {
      if (!isRedisUnavailable(error)) throw error;
      if (Date.now() - this.lastWarnAt >= WARN_EVERY_MS) {
        this.lastWarnAt = Date.now();
        this.log.warn('order route rate limit skipped: redis unavailable');
      }
      return true;
    }
    if (!decision.allowed) throw new AppException(ErrorCode.RateLimited, `too many ${budget} requests, slow down`, decision.retryAfterS);
    return true;
  }
}
