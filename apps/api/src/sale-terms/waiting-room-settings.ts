import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** A product's waiting room as stored (products.waiting_room) and shown. */
export interface WaitingRoomSettings {
  /** Admissions per second; null: paced automatically from the measured purchase service rate. */
  admitPerSecond: number | null;
  admissionTtlS: number;
  preQueueS: number;
}

export const DEFAULT_ADMISSION_TTL_S = 120;

/** The `waitingRoom` object of POST /admin/products. */
export class WaitingRoomSettingsDto {
  @ApiPropertyOptional({
    example: 50,
    minimum: 1,
    maximum: 100_000,
    description: 'admissions per second; omitted: paced from the measured purchase service rate',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100_000)
  admitPerSecond?: number;

  @ApiPropertyOptional({
    example: DEFAULT_ADMISSION_TTL_S,
    default: DEFAULT_ADMISSION_TTL_S,
    minimum: 1,
    maximum: 86_400,
    description: 'how long an admission lets its buyer purchase',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86_400)
  admissionTtlS?: number;

  @ApiPropertyOptional({
    example: 600,
    default: 0,
    minimum: 0,
    maximum: 604_800,
    description: 'seconds before saleStartsAt that joining opens; those tickets are shuffled at the start',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(604_800)
  preQueueS?: number;
}

/** The settings shown on a product. */
export class WaitingRoomView implements WaitingRoomSettings {
  @ApiProperty({ example: 50, nullable: true, type: Number, description: 'null: paced automatically' })
  admitPerSecond!: number | null;
  @ApiProperty({ example: DEFAULT_ADMISSION_TTL_S }) admissionTtlS!: number;
  @ApiProperty({ example: 0 }) preQueueS!: number;
}

export const toWaitingRoomSettings = (dto: WaitingRoomSettingsDto): WaitingRoomSettings => ({
  admitPerSecond: dto.admitPerSecond ?? null,
  admissionTtlS: dto.admissionTtlS ?? DEFAULT_ADMISSION_TTL_S,
  preQueueS: dto.preQueueS ?? 0,
});
