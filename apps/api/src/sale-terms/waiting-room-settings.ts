import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';

/** A product's waiting room as stored (products.waiting_room) and shown. */
export interface WaitingRoomSettings {
  /** Admissions per second; null: paced automatically from the measured purchase service rate. */
  admitPerSecond: number | null;
  admissionTtlS: number;
  preQueueS: number;
  /** A join carries a solved proof of work of this many squarings (waiting-room/join-work); absent: none. */
  joinWork?: JoinWorkSettings;
  /** At most this many tickets per client address for the sale; absent: no cap. */
  joinsPerAddress?: number;
  /** Joining needs this claim truthy in the bearer token; absent: any user. */
  requiredClaim?: string;
}

export interface JoinWorkSettings {
  squarings: number;
}

export const DEFAULT_ADMISSION_TTL_S = 120;
export const MIN_JOIN_SQUARINGS = 1_000;
export const MAX_JOIN_SQUARINGS = 100_000_000;

/** The `waitingRoom.joinWork` object of POST /admin/products. */
export class JoinWorkSettingsDto implements JoinWorkSettings {
  @ApiProperty({
    example: 300_000,
    minimum: MIN_JOIN_SQUARINGS,
    maximum: MAX_JOIN_SQUARINGS,
    description:
      "T: sequential modular squarings (1024-bit modulus) a join must show; 1-5 µs each on a server core in Node's " +
      'BigInt (300,000: 0.3-1.5 s), a phone core 3-5x slower',
  })
  @IsInt()
  @Min(MIN_JOIN_SQUARINGS)
  @Max(MAX_JOIN_SQUARINGS)
  squarings!: number;
}

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

  @ApiPropertyOptional({
    type: JoinWorkSettingsDto,
    description: 'joining needs a solved proof of work (GET /products/:id/queue/challenge); omitted: none',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => JoinWorkSettingsDto)
  joinWork?: JoinWorkSettingsDto;

  @ApiPropertyOptional({
    example: 3,
    minimum: 1,
    maximum: 1_000_000,
    description:
      'at most this many tickets of the sale per client address (as TRUST_PROXY resolves it); omitted: no cap',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  joinsPerAddress?: number;

  @ApiPropertyOptional({
    example: 'email_verified',
    description: 'joining needs this claim truthy in the bearer token (true, a non-empty string, a non-zero number)',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/)
  requiredClaim?: string;
}

/** The settings shown on a product. */
export class WaitingRoomView implements WaitingRoomSettings {
  @ApiProperty({ example: 50, nullable: true, type: Number, description: 'null: paced automatically' })
  admitPerSecond!: number | null;
  @ApiProperty({ example: DEFAULT_ADMISSION_TTL_S }) admissionTtlS!: number;
  @ApiProperty({ example: 0 }) preQueueS!: number;
  @ApiPropertyOptional({ type: JoinWorkSettingsDto }) joinWork?: JoinWorkSettings;
  @ApiPropertyOptional({ example: 3 }) joinsPerAddress?: number;
  @ApiPropertyOptional({ example: 'email_verified' }) requiredClaim?: string;
}

export const toWaitingRoomSettings = (dto: WaitingRoomSettingsDto): WaitingRoomSettings => ({
  admitPerSecond: dto.admitPerSecond ?? null,
  admissionTtlS: dto.admissionTtlS ?? DEFAULT_ADMISSION_TTL_S,
  preQueueS: dto.preQueueS ?? 0,
  ...(dto.joinWork ? { joinWork: { squarings: dto.joinWork.squarings } } : {}),
  ...(dto.joinsPerAddress !== undefined ? { joinsPerAddress: dto.joinsPerAddress } : {}),
  ...(dto.requiredClaim !== undefined ? { requiredClaim: dto.requiredClaim } : {}),
});
