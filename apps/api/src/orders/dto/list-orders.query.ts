import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IsPositiveId } from '../../common/positive-id';
import { ORDER_STATUSES, OrderStatus } from '../order-status';

// Query strings arrive as text; only plain digit strings become numbers, anything else fails IsInt.
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;

export class ListOrdersQuery {
  @ApiPropertyOptional({ example: '42' })
  @IsOptional()
  @IsString()
  @IsPositiveId()
  productId?: string;

  @ApiPropertyOptional({ enum: ORDER_STATUSES })
  @IsOptional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;

  @ApiPropertyOptional({ example: 50, default: 50, minimum: 1, maximum: 500 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,80}$/, { message: 'cursor is not a cursor this API issued' })
  cursor?: string;
}
