import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBadRequestResponse, ApiBody, ApiHeader, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { PaymentEventAnswer, PaymentEventDto } from './payment-event.dto';
import { PaymentEventsService } from './payment-events.service';
import { PaymentRouteConfig } from './payment-routes';
import { SIGNATURE_TOLERANCE_S } from './webhook-signature';
import { WebhookSignatureGuard } from './webhook-signature.guard';

const WEBHOOK_ROUTE: PaymentRouteConfig = { rawBody: true, requires: 'PAYMENT_WEBHOOK_SECRET' };

@ApiTags('payments')
@Controller('payments')
export class PaymentWebhookController {
  constructor(private readonly events: PaymentEventsService) {}

  @Post('webhook')
  @Public()
  @HttpCode(200)
  @RouteConfig(WEBHOOK_ROUTE)
  @UseGuards(WebhookSignatureGuard)
  @ApiOperation({
    summary: "The payment provider's events; each event id is applied once",
    description:
      'Served only when PAYMENT_WEBHOOK_SECRET is set (404 otherwise, like an unknown route). ' +
      'ORDER_NOT_PAYABLE: the order expired, was cancelled or was already paid before the payment arrived; the provider refunds it. ' +
      'An unknown order (404) or a wrong amount (422) records nothing.',
  })
  @ApiHeader({
    name: 'Payment-Signature',
    required: true,
    description: `t=<unix seconds>,v1=<hex HMAC-SHA256(PAYMENT_WEBHOOK_SECRET, t + "." + raw body)>; several v1 allowed; t within ${SIGNATURE_TOLERANCE_S} s`,
  })
  @ApiBody({ type: PaymentEventDto })
  @ApiOkResponse({ type: PaymentEventAnswer, description: 'PAID, ALREADY_PROCESSED, ORDER_NOT_PAYABLE or FAILED_RECORDED' })
  @ApiBadRequestResponse({ description: 'VALIDATION_FAILED: a malformed event (checked after the signature)' })
  @ApiUnauthorizedResponse({ description: 'SIGNATURE_INVALID: missing, wrong, or a timestamp too far away' })
  @ApiNotFoundResponse({ description: 'ORDER_NOT_FOUND (nothing recorded)' })
  @ApiResponse({ status: 422, description: "AMOUNT_MISMATCH: amountCents is not the order's total (nothing recorded)" })
  @ApiResponse({ status: 503, description: 'DEPENDENCY_UNAVAILABLE: nothing was recorded; deliver it again' })
  receive(@Body() event: PaymentEventDto): Promise<PaymentEventAnswer> {
    return this.events.apply(event);
  }
}
