import { CanActivate, ExecutionContext, Inject, Injectable, Logger, SetMetadata } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Reflector } from '@nestjs/core';
import { AuthUser } from '../auth/auth.types';
import { RateBudget, UserRateLimiter } from '../common/throttling/rate-limiter';
import { clientAddressKey } from '../common/throttling/client-address-key';
import { TypedConfigService } from '../config/app-config.module';

const ROUTE_BUDGET = 'orders:routeBudget';

/** The route's own per-user budget (RATE_LIMIT_PER_SECOND a second), kept apart from every other route's. */
export const RouteBudget = (name: 'order.list' | 'order.get' | 'order.pay' | 'order.cancel' | 'purchase.status') =>
  SetMetadata(ROUTE_BUDGET, name);

/**
 * Per-user rate limit on the order routes, shared by every instance through Redis. A budget per
 * route, so that reading one's orders never spends the budget for paying; counted per caller,
 * so that a caller flooding someone else's order spends only their own. Counted per instance
 * while Redis is unreachable or slow (RateBudget): no invariant depends on it.
 */
@Injectable()
export class OrderRouteLimit implements CanActivate {
  private readonly budgets = new Map<string, RateBudget>();
  private readonly ipv6Prefix: number;

  constructor(
    private readonly reflector: Reflector,
    /** The per-user limit (RATE_LIMIT_PER_SECOND); each route's budget counts on its own keys. */
    private readonly limiter: UserRateLimiter,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.ipv6Prefix = config.get('edge', { infer: true }).ipv6ClientPrefix;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const budget = this.reflector.get<string | undefined>(ROUTE_BUDGET, context.getHandler());
    const request = context.switchToHttp().getRequest<{ user?: AuthUser; ip?: string }>();
    if (!budget) return true;
    const caller =
      request.user?.id !== undefined
        ? `user:${request.user.id}`
        : `ip:${clientAddressKey(request.ip, this.ipv6Prefix)}`;
    let spent = this.budgets.get(budget);
    if (!spent)
      this.budgets.set(
        budget,
        (spent = new RateBudget(this.limiter, new Logger(OrderRouteLimit.name), `${budget} requests`)),
      );
    await spent.spend(`${budget}:${caller}`);
    return true;
  }
}
