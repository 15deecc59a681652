import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDateString,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { WaitingRoomSettingsDto } from '../../sale-terms/waiting-room-settings';

const MAX_UNITS = 100_000_000;

export class CreateProductDto {
  @ApiProperty({ example: 'PHONE-X-128', description: 'unique; letters, digits, dot, dash, underscore' })
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'sku must be 1 to 64 letters, digits, dots, dashes or underscores' })
  sku!: string;

  @ApiProperty({ example: 'Phone X 128 GB' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiProperty({ example: 49900, description: 'price in cents' })
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  priceCents!: number;

  @ApiProperty({ example: 1000 })
  @IsInt()
  @Min(0)
  @Max(MAX_UNITS)
  stock!: number;

  @ApiPropertyOptional({ example: 1, default: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_UNITS)
  perUserLimit?: number;

  @ApiPropertyOptional({
    example: 1,
    default: 1,
    minimum: 1,
    maximum: 64,
    description: 'split the stock across this many rows, each with its own lock (for products one row cannot carry)',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(64)
  segments?: number;

  @ApiPropertyOptional({ example: '2026-11-21T12:00:00Z' })
  @IsOptional()
  @IsDateString({ strict: true })
  saleStartsAt?: string;

  @ApiPropertyOptional({ example: '2026-11-21T13:00:00Z' })
  @IsOptional()
  @IsDateString({ strict: true })
  saleEndsAt?: string;

  @ApiPropertyOptional({
    type: WaitingRoomSettingsDto,
    description:
      'sell through a fair, inventory-aware waiting room: buyers join a queue and purchase with an Admission',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => WaitingRoomSettingsDto)
  waitingRoom?: WaitingRoomSettingsDto;
}
