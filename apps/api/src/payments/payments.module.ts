import { Module } from '@nestjs/common';
import { DatabaseClock } from '../database/database-clock';
import { PaymentEventsService } from './payment-events.service';
import { PaymentWebhookController } from './payment-webhook.controller';
import { WebhookSignatureGuard } from './webhook-signature.guard';

/** Payments from a provider, by signed webhook (POST /payments/webhook). */
@Module({
  controllers: [PaymentWebhookController],
  providers: [PaymentEventsService, WebhookSignatureGuard, DatabaseClock],
})
export class PaymentsModule {}
