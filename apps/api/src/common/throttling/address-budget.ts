import { Logger } from '@nestjs/common';
import type { TypedConfigService } from '../../config/app-config.module';
import { addressTracker, RateBudget, WindowRateLimiter } from './rate-limiter';

/**
 * A budget of requests a second per client address, shared by every instance through Redis (counted
 * per instance while Redis is unreachable or slow: RateBudget). The address is the one Fastify
 * derives (the peer, or with TRUST_PROXY the client a trusted balancer forwarded), an IPv6 client
 * counted by its IPV6_CLIENT_PREFIX prefix, so that one home line's /64 is one client.
 */
export class AddressBudget {
  private readonly budget: RateBudget;
  private readonly ipv6Prefix: number;

  constructor(
    /** The app's shared counting (UserRateLimiter), which this budget counts with under its own limit. */
    shared: WindowRateLimiter,
    config: TypedConfigService,
    perSecond: number,
    /** What the budget counts, in its 429's message and its warnings. */
    what: string,
    log: Logger,
  ) {
    this.budget = new RateBudget(shared.withLimit(perSecond), log, what);
    this.ipv6Prefix = config.get('edge', { infer: true }).ipv6ClientPrefix;
  }

  /** Counts one request of `route` from `address`; throws 429 RATE_LIMITED (with Retry-After) past the budget. */
  spend(route: string, address: string | undefined): Promise<void> {
    return this.budget.spend(addressTracker(route, address, this.ipv6Prefix));
  }
}
