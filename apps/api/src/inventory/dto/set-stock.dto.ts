import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';

export class SetStockDto {
  @ApiProperty({ example: 500, description: 'the units still for sale (absolute)' })
  @IsInt()
  @Min(0)
  @Max(100_000_000)
  stock!: number;
}
