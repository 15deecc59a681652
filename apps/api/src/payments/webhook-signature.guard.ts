import { CanActivate, ExecutionContext, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { DatabaseClock } from '../database/database-clock';
import { signatureInvalid } from './payment-errors';
import { RawBodyRequest } from './payment-routes';
import { verifySignature } from './webhook-signature';

/**
 * The webhook's only credential: Payment-Signature over the raw body. Runs before the body is
 * validated. Its freshness is judged on the database's clock, the one the orders it pays expire
 * by: an instance whose own clock runs fast would otherwise refuse every fresh event as stale and
 * let its buyers' orders expire unpaid.
 */
@Injectable()
export class WebhookSignatureGuard implements CanActivate {
  private readonly secret: string | undefined;

  constructor(
    @Inject(ConfigService) config: TypedConfigService,
    private readonly clock: DatabaseClock,
  ) {
    this.secret = config.get('payments', { infer: true }).webhookSecret;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RawBodyRequest>();
    // installPaymentRoutes already answers 404 without a secret; this keeps the guard safe alone.
    if (this.secret === undefined) throw new NotFoundException(`Cannot ${request.method} ${request.url}`);
    const header = request.headers['payment-signature'];
    const verdict = verifySignature(
      typeof header === 'string' ? header : undefined,
      request.rawBody ?? Buffer.alloc(0),
      this.secret,
      Math.floor((await this.clock.nowMs()) / 1000),
    );
    if (!verdict.valid) throw signatureInvalid(verdict.reason);
    return true;
  }
}
