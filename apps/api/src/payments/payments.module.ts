import { Module } from '@nestjs/common';
import { ThrottlingModule } from '../common/throttling/throttling.module';
import { DatabaseClock } from '../database/database-clock';
import { PaymentEventsService } from './payment-events.service';
import { PaymentWebhookController } from './payment-webhook.controller';
import { WebhookAddressLimit } from './webhook-address-limit';
import { WebhookSignatureGuard } from './webhook-signature.guard';

/** Payments from a provider, by signed webhook (POST /payments/webhook). */
@Module({
  imports: [ThrottlingModule],
  controllers: [PaymentWebhookController],
  providers: [PaymentEventsService, WebhookSignatureGuard, DatabaseClock, WebhookAddressLimit],
})
export class PaymentsModule {}
