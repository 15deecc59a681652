import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IsPositiveId } from '../common/positive-id';

export const PAYMENT_EVENT_TYPES = ['payment.succeeded', 'payment.failed'] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];
export const PAYMENT_RESULTS = ['PAID', 'ALREADY_PROCESSED', 'ORDER_NOT_PAYABLE', 'FAILED_RECORDED'] as const;
export type PaymentResult = (typeof PAYMENT_RESULTS)[number];

/**
 * The provider's event, as signed. Fields of the provider's own beyond these (livemode, created,
 * metadata...) are ignored, not refused: a provider adds fields without asking.
 */
export class PaymentEventDto {
  @ApiProperty({ example: 'evt_3PqL8f2eZvKYlo2C', description: "the provider's event id: each is applied once" })
  @IsString()
  @Matches(/^[\x21-\x7e]{1,200}$/, { message: 'eventId must be 1 to 200 printable ASCII characters' })
  eventId!: string;

  @ApiProperty({ enum: PAYMENT_EVENT_TYPES, example: 'payment.succeeded' })
  @IsIn(PAYMENT_EVENT_TYPES)
  type!: PaymentEventType;

  @ApiProperty({ example: '1001' })
  @IsString()
  @IsPositiveId({ message: 'orderId must be a positive integer, as a string' })
  orderId!: string;

  @ApiProperty({
    example: 3998,
    description: "must equal the order's total: the product's price in cents times the quantity",
  })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  amountCents!: number;

  @ApiProperty({
    required: false,
    example: 'usd',
    description: 'ISO 4217 code, any case; when present it must be PAYMENT_CURRENCY',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{3}$/, { message: 'currency must be a three-letter ISO 4217 code' })
  currency?: string;
}

/** What the provider is told; ORDER_NOT_PAYABLE asks it to refund the payment. */
export class PaymentEventAnswer {
  @ApiProperty({ example: 'evt_3PqL8f2eZvKYlo2C' }) eventId!: string;
  @ApiProperty({ example: '1001' }) orderId!: string;
  @ApiProperty({ enum: PAYMENT_RESULTS, example: 'PAID' }) result!: PaymentResult;
}
