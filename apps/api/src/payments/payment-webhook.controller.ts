import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { createValidationPipe } from '../common/validation.pipe';
import { TypedConfigService } from '../config/app-config.module';
import { currencyMismatch } from './payment-errors';
import { PaymentEventAnswer, PaymentEventDto } from './payment-event.dto';
import { PaymentEventsService } from './payment-events.service';
import { PaymentRouteConfig } from './payment-routes';
import { SIGNATURE_TOLERANCE_S } from './webhook-signature';
import { WebhookSignatureGuard } from './webhook-signature.guard';

const WEBHOOK_ROUTE: PaymentRouteConfig = { rawBody: true, requires: 'PAYMENT_WEBHOOK_SECRET', addressBudget: true };
// The parameter is typed Readonly<...> (no class in the metadata) so the app-wide strict pipe leaves
// the body to this one, which drops the provider's own extra fields instead of refusing them.
// eslint-disable-next-line no-useless-assignment -- read by the @Body() parameter decorator below, which the rule does not follow
const EVENT_PIPE = createValidationPipe({ ignoreUnknownFields: true, expectedType: PaymentEventDto });

@ApiTags('payments')
@Controller('payments')
export class PaymentWebhookController {
  private readonly currency: string;

  constructor(
    private readonly events: PaymentEventsService,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.currency = config.get('payments', { infer: true }).currency;
  }

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
      'An unknown order (404), a wrong amount or a currency other than PAYMENT_CURRENCY (422) records nothing. ' +
      "Fields beyond these (the provider's own) are ignored.",
  })
  @ApiHeader({
    name: 'Payment-Signature',
    required: true,
    description: `t=<unix seconds>,v1=<hex HMAC-SHA256(PAYMENT_WEBHOOK_SECRET, t + "." + raw body)>; several v1 allowed; t within ${SIGNATURE_TOLERANCE_S} s`,
  })
  @ApiBody({ type: PaymentEventDto })
  @ApiOkResponse({
    type: PaymentEventAnswer,
    description: 'PAID, ALREADY_PROCESSED, ORDER_NOT_PAYABLE or FAILED_RECORDED',
  })
  @ApiBadRequestResponse({ description: 'VALIDATION_FAILED: a malformed event (checked after the signature)' })
  @ApiUnauthorizedResponse({ description: 'SIGNATURE_INVALID: missing, wrong, or a timestamp too far away' })
  @ApiNotFoundResponse({ description: 'ORDER_NOT_FOUND (nothing recorded)' })
  @ApiResponse({
    status: 422,
    description:
      "AMOUNT_MISMATCH: amountCents is not the order's total, or currency is not PAYMENT_CURRENCY (nothing recorded)",
  })
  @ApiResponse({ status: 503, description: 'DEPENDENCY_UNAVAILABLE: nothing was recorded; deliver it again' })
  receive(@Body(EVENT_PIPE) event: Readonly<PaymentEventDto>): Promise<PaymentEventAnswer> {
    if (event.currency !== undefined && event.currency.toLowerCase() !== this.currency)
      throw currencyMismatch(event.orderId, event.currency, this.currency);
    return this.events.apply(event);
  }
}
