import { CanActivate, ExecutionContext, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { signatureInvalid } from './payment-errors';
import { RawBodyRequest } from './payment-routes';
import { verifySignature } from './webhook-signature';

/** The webhook's only credential: Payment-Signature over the raw body. Runs before the body is validated. */
@Injectable()
export class WebhookSignatureGuard implements CanActivate {
  private readonly secret: string | undefined;

  constructor(@Inject(ConfigService) config: TypedConfigService) {
    this.secret = config.get('payments', { infer: true }).webhookSecret;
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RawBodyRequest>();
    // installPaymentRoutes already answers 404 without a secret; this keeps the guard safe alone.
    if (this.secret === undefined) throw new NotFoundException(`Cannot ${request.method} ${request.url}`);
    const header = request.headers['payment-signature'];
    const verdict = verifySignature(typeof header === 'string' ? header : undefined, request.rawBody ?? Buffer.alloc(0), this.secret, Math.floor(Date.now() / 1000));
    if (!verdict.valid) throw signatureInvalid(verdict.reason);
    return true;
  }
}
