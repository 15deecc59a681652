import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AddressBudget } from '../common/throttling/address-budget';
import { UserRateLimiter } from '../common/throttling/rate-limiter';
import { TypedConfigService } from '../config/app-config.module';

/**
 * A budget per client address, shared by every instance through Redis, for requests that have no
 * user to be counted against (a missing or bad token). The address is the one Fastify derives:
 * the socket's peer, or with TRUST_PROXY the client a trusted balancer forwarded (IPv6 by its
 * IPV6_CLIENT_PREFIX prefix). Counted per instance while Redis is unreachable or slow
 * (AddressBudget): no invariant depends on it.
 */
@Injectable()
export class ClientAddressLimit {
  private readonly budget: AddressBudget;

  constructor(shared: UserRateLimiter, @Inject(ConfigService) config: TypedConfigService) {
    const perSecond = config.get('auth', { infer: true }).failuresPerSecondPerAddress;
    const log = new Logger(ClientAddressLimit.name);
    this.budget = new AddressBudget(shared, config, perSecond, 'requests without a valid token from this address', log);
  }

  /** Counts one request of `budget` from `address`; throws 429 RATE_LIMITED (with Retry-After) past the budget. */
  spend(budget: string, address: string | undefined): Promise<void> {
    return this.budget.spend(budget, address);
  }
}
