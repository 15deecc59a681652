import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches } from 'class-validator';

/** GET /purchases/:purchaseId's query: whose purchase an admin asks about. */
export class PurchaseStatusQuery {
  @ApiPropertyOptional({
    example: 'u1',
    description:
      "admin only (a user may name only themselves): the buyer whose purchase this is. Without it an admin gets every buyer's purchase with this id (`matches`)",
  })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  // eslint-disable-next-line no-control-regex -- control characters are exactly what it refuses, as a token's subject does
  @Matches(/^[^\u0000-\u001f]+$/, { message: 'userId must not contain control characters' })
  userId?: string;
}
