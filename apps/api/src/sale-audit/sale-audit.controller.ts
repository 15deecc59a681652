import { Readable } from 'node:stream';
import { Body, Controller, Get, HttpCode, Ip, Param, Post, StreamableFile } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { Public, RequireRole } from '../auth/auth.decorators';
import { productNotFound } from '../common/errors/app.exception';
import { ParseIdPipe } from '../common/parse-id.pipe';
import { ProductCatalog } from '../inventory/product-catalog.service';
import { QueueRouteLimit } from '../waiting-room/queue-route-limit';
import { noWaitingRoom } from '../waiting-room/waiting-room-errors';
import { QueueAudits } from './queue-audit.service';
import { beaconClosed, beaconInvalid, noBeaconRound } from './sale-audit-errors';
import { SaleDraws } from './sale-draws.service';

class BeaconRoundDto {
  @ApiProperty({ example: 12345678, description: "the sale's committed round (saleCommitment.beacon.round)" })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  round!: number;

  @ApiProperty({ description: "the chain's signature of that round, hex (48 bytes: a compressed G1 point)" })
  @IsString()
  @Matches(/^[0-9a-fA-F]{96}$/)
  signature!: string;
}

class SaleDrawView {
  @ApiProperty({ enum: ['VERIFIED', 'MISSING', 'NONE'] }) beacon!: string;
  @ApiProperty({ nullable: true, type: Number }) round!: number | null;
  @ApiProperty({ nullable: true, type: String }) signature!: string | null;
}

const NOT_FOUND = 'PRODUCT_NOT_FOUND; NOT_FOUND for a product without a waiting room';

/** The public audit of a sale's queue, and an admin's way to hand the app the committed beacon round. */
@ApiTags('waiting room')
@Controller()
export class SaleAuditController {
  constructor(
    private readonly catalog: ProductCatalog,
    private readonly audits: QueueAudits,
    private readonly draws: SaleDraws,
    private readonly limit: QueueRouteLimit,
  ) {}

  @Get('products/:id/queue/audit')
  @Public()
  @ApiOperation({
    summary:
      "The sale's audit file: its commitment from creation on; after the start the seed, the beacon round, every ticket's hash, place and admission time, and the admin actions' hash chain",
  })
  @ApiOkResponse({ description: 'application/json, streamed (docs/API.md: the file and how to verify it)' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @ApiResponse({
    status: 429,
    description:
      "RATE_LIMITED: this client address's (QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS) budget is spent, with Retry-After",
  })
  @ApiResponse({ status: 503, description: 'DEPENDENCY_UNAVAILABLE: Postgres or Redis unreachable, with Retry-After' })
  async audit(@Param('id', ParseIdPipe) productId: string, @Ip() address: string): Promise<StreamableFile> {
    await this.limit.summary(address);
    await this.requireWaitingRoom(productId);
    const chunks = await this.audits.file(productId);
    if (!chunks) throw noWaitingRoom(productId);
    return new StreamableFile(Readable.from(chunks), { type: 'application/json; charset=utf-8' });
  }

  @Post('admin/products/:id/beacon')
  @RequireRole('admin')
  @ApiBearerAuth()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Hand the app the signature of the sale's committed beacon round (when SALE_BEACON_URL cannot); verified before use",
  })
  @ApiOkResponse({ type: SaleDrawView })
  @ApiResponse({ status: 403, description: 'FORBIDDEN: not an admin' })
  @ApiNotFoundResponse({ description: `${NOT_FOUND}, or one that committed to no beacon round` })
  @ApiResponse({
    status: 409,
    description: 'BEACON_CLOSED: the draw is decided already, or its deadline passed (the fallback is then decided)',
  })
  @ApiResponse({ status: 422, description: "BEACON_INVALID: not the chain's signature of the committed round" })
  async postBeacon(@Param('id', ParseIdPipe) productId: string, @Body() dto: BeaconRoundDto): Promise<SaleDrawView> {
    await this.requireWaitingRoom(productId);
    const draw = await this.draws.post(productId, dto.round, dto.signature);
    if (draw === null) throw noWaitingRoom(productId);
    if (draw === 'none') throw noBeaconRound(productId);
    if (draw === 'invalid') throw beaconInvalid(dto.round);
    if (draw === 'closed') throw beaconClosed(productId);
    return { beacon: draw.beacon, round: draw.round, signature: draw.signature };
  }

  private async requireWaitingRoom(productId: string): Promise<void> {
    const terms = this.catalog.knownTerms(productId) ?? (await this.catalog.saleTerms(productId));
    if (!terms) throw productNotFound(productId);
    if (!terms.waitingRoom) throw noWaitingRoom(productId);
  }
}
