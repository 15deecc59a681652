import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../../config/app-config.module';
import { AddressBudget } from './address-budget';
import { UserRateLimiter } from './rate-limiter';

/** The public routes counted here, each with a budget of its own. */
export type PublicRoute = 'product.read';

/**
 * Budgets of the public routes that have no caller to count but an address: per client address
 * (the address Fastify derives: the peer, or with TRUST_PROXY the client a trusted balancer
 * forwarded; IPv6 by its IPV6_CLIENT_PREFIX prefix), PUBLIC_READS_PER_SECOND_PER_ADDRESS requests
 * a second on each route, shared by every instance through Redis. Spent before the route reads anything, so a refused request costs
 * one counter hit: the counters of one event-loop turn go to Redis in one script call
 * (rate-limiter.ts). Counted per instance while Redis is unreachable or slow (AddressBudget).
 */
@Injectable()
export class PublicRouteLimit {
  private readonly budgets: Record<PublicRoute, AddressBudget>;

  constructor(shared: UserRateLimiter, @Inject(ConfigService) config: TypedConfigService) {
    const perSecond = config.get('http', { infer: true }).publicReadsPerSecondPerAddress;
    const log = new Logger(PublicRouteLimit.name);
    this.budgets = {
      'product.read': new AddressBudget(shared, config, perSecond, 'product.read requests from this address', log),
    };
  }

  /** Counts one request of `route` from `address`; throws 429 RATE_LIMITED (with Retry-After) past the budget. */
  spend(route: PublicRoute, address: string | undefined): Promise<void> {
    return this.budgets[route].spend(route, address);
  }
}
