import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';

export class PurchaseDto {
  @ApiPropertyOptional({ example: 1, default: 1, minimum: 1, maximum: 10_000 })
  // Absent means 1; an explicit null is a wrong type, not "absent".
  @ValidateIf((_dto, value) => value !== undefined)
  @IsInt()
  @Min(1)
  @Max(10_000)
  quantity?: number;
}
