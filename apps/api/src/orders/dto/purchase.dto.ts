import { ApiPropertyOptional } from '@nestjs/swagger';

export const MAX_QUANTITY = 10_000;

/** The purchase body as documented in Swagger; parsePurchaseBody (the purchase pipeline) validates it. */
export class PurchaseDto {
  @ApiPropertyOptional({ example: 1, default: 1, minimum: 1, maximum: MAX_QUANTITY, type: 'integer' })
  quantity?: number;
}
