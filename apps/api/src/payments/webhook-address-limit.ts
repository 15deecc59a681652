import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AddressBudget } from '../common/throttling/address-budget';
import { UserRateLimiter } from '../common/throttling/rate-limiter';
import { TypedConfigService } from '../config/app-config.module';

const BUDGET = 'payments.webhook';

/**
 * The webhook's budget per client address (PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS), shared
 * by every instance through Redis. The route's credential is an HMAC over its body, so without a
 * budget anyone could make us read and hash up to the body limit per request for free: this one is
 * spent before the body is read (installPaymentRoutes), and a refused request costs one counter hit.
 */
@Injectable()
export class WebhookAddressLimit {
  private readonly budget: AddressBudget;

  constructor(shared: UserRateLimiter, @Inject(ConfigService) config: TypedConfigService) {
    const perSecond = config.get('payments', { infer: true }).webhookRequestsPerSecondPerAddress;
    const log = new Logger(WebhookAddressLimit.name);
    this.budget = new AddressBudget(shared, config, perSecond, 'payment webhook requests from this address', log);
  }

  /** Counts one webhook request from `address`; throws 429 RATE_LIMITED (with Retry-After) past the budget. */
  spend(address: string | undefined): Promise<void> {
    return this.budget.spend(BUDGET, address);
  }
}
