import { Body, Controller, Get, HttpCode, Ip, Param, Post, Res } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentUser, Public } from '../auth/auth.decorators';
import { AuthUser } from '../auth/auth.types';
import { ParseIdPipe } from '../common/parse-id.pipe';
import { TicketStatusView } from './ticket-status';
import { challengeCacheControl, type JoinWorkAnswer, type JoinWorkChallenge } from './join-work/join-work';
import type { FastifyReply } from 'fastify';
import { JOIN_WORK_NONCE } from './join-work/solve';
import { QueueSummary, WaitingRoomService } from './waiting-room.service';
import { QueueRouteLimit } from './queue-route-limit';
import { QueueShortcut } from './queue-shortcut.decorator';

class QueueSummaryView implements QueueSummary {
  @ApiProperty({ example: 1200, description: 'tickets not yet admitted' }) waiting!: number;
  @ApiProperty({ example: 40, description: 'outstanding admissions now' }) admitted!: number;
  @ApiProperty({ example: false }) soldOut!: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "hex SHA-256 of the seed's bytes, from the pre-queue's opening",
  })
  seedCommitment!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'the seed (hex), from saleStartsAt on' }) seed!:
    string | null;
  @ApiProperty({
    enum: ['PENDING', 'VERIFIED', 'MISSING', 'NONE'],
    description:
      'how the start shuffle got its key: VERIFIED (the committed beacon round), MISSING (the fallback: the seed alone), NONE (no round committed); PENDING until decided',
  })
  beacon!: QueueSummary['beacon'];
}

class JoinWorkAnswerDto implements JoinWorkAnswer {
  @ApiProperty({ description: 'the challenge as GET /products/:id/queue/challenge gave it' })
  @IsString()
  @MaxLength(256)
  challenge!: string;

  @ApiProperty({ description: "the client's nonce: 16 to 43 base64url characters, new for each join" })
  @IsString()
  @Matches(JOIN_WORK_NONCE)
  nonce!: string;

  @ApiProperty({ description: 'x^(2^T) mod N, hex, x = H(challenge, nonce, user id) mod N' })
  @IsString()
  @MaxLength(1024)
  solution!: string;
}

/** The join's optional body: a solved challenge, for products whose waiting room sets joinWork. */
class JoinQueueDto {
  @ApiPropertyOptional({ type: JoinWorkAnswerDto, description: 'needed when the product sets waitingRoom.joinWork' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => JoinWorkAnswerDto)
  work?: JoinWorkAnswerDto;
}

class JoinWorkChallengeView implements JoinWorkChallenge {
  @ApiProperty({ description: "opaque, signed, the sale's for this minute; send it back with the nonce and solution" })
  challenge!: string;
  @ApiProperty({ description: 'N (1024 bits), hex' }) modulus!: string;
  @ApiProperty({ example: 300_000, description: 'T: the solution is x^(2^T) mod N, by T squarings in a row' })
  squarings!: number;
  @ApiProperty({ example: '2026-11-21T12:02:00.000Z' }) expiresAt!: string;
}

const NOT_FOUND = 'PRODUCT_NOT_FOUND; NOT_FOUND for a product without a waiting room';
const RATE_LIMITED = (per: string) => ({
  status: 429,
  description: `RATE_LIMITED: ${per} budget for the route is spent, with Retry-After`,
});
const UNAVAILABLE = {
  status: 503,
  description: 'DEPENDENCY_UNAVAILABLE: Redis is unreachable (the queue has no database fallback), with Retry-After',
};

@ApiTags('waiting room')
@Controller('products')
export class WaitingRoomController {
  constructor(
    private readonly room: WaitingRoomService,
    private readonly limit: QueueRouteLimit,
  ) {}

  @Post(':id/queue')
  @QueueShortcut('join')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Join the waiting room of a product; joining again returns the same ticket and place' })
  @ApiOkResponse({ type: TicketStatusView })
  @ApiResponse({ status: 401, description: 'UNAUTHENTICATED' })
  @ApiResponse({
    status: 403,
    description:
      'SALE_NOT_ACTIVE: before the pre-queue opens (preQueueS before saleStartsAt) or after saleEndsAt; ' +
      'JOIN_WORK_REQUIRED: the product sets joinWork and the body has no work; JOIN_WORK_INVALID: the work is wrong, ' +
      "expired, used, or another user's or product's; JOIN_CLAIM_REQUIRED: the token lacks waitingRoom.requiredClaim",
  })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @ApiConflictResponse({ description: 'SOLD_OUT' })
  @ApiResponse({
    status: 429,
    description:
      "RATE_LIMITED: this user's join budget (RATE_LIMIT_PER_SECOND) is spent, or the client address holds " +
      'waitingRoom.joinsPerAddress live tickets (waiting, or admitted and unexpired) already and the join ' +
      "carries no work that pays for one more: the body's `challenge` is the work that takes a ticket now, " +
      'doubling per ticket past the cap (Retry-After: until the start before it; then until its soonest ' +
      'admission expires, at most 15 s)',
  })
  @ApiResponse(UNAVAILABLE)
  async join(
    @Param('id', ParseIdPipe) productId: string,
    @CurrentUser() user: AuthUser,
    @Ip() address: string,
    @Body() body: JoinQueueDto = {},
  ): Promise<TicketStatusView> {
    await this.limit.join(user);
    return this.room.join(productId, user, { address, work: body?.work });
  }

  @Get(':id/queue/challenge')
  @QueueShortcut('challenge')
  @Public()
  @ApiOperation({
    summary:
      "The sale's proof-of-work challenge of this minute, for a product that sets waitingRoom.joinWork: the same for every client",
  })
  @ApiOkResponse({ type: JoinWorkChallengeView })
  @ApiResponse({ status: 403, description: 'SALE_NOT_ACTIVE: the queue is not open' })
  @ApiNotFoundResponse({
    description: 'PRODUCT_NOT_FOUND; NOT_FOUND for a product without a waiting room or without joinWork',
  })
  @ApiResponse(RATE_LIMITED("this client address's (QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS, a counter of its own)"))
  @ApiResponse({ ...UNAVAILABLE, description: 'DEPENDENCY_UNAVAILABLE: Postgres unreachable, with Retry-After' })
  async challenge(
    @Param('id', ParseIdPipe) productId: string,
    @Ip() address: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JoinWorkChallengeView> {
    await this.limit.challenge(address);
    const challenge = await this.room.challenge(productId);
    void reply.header('Cache-Control', challengeCacheControl(Date.now()));
    return challenge;
  }

  @Get(':id/queue/:ticket')
  @QueueShortcut('poll')
  @Public()
  @ApiOperation({ summary: "A ticket's state, place, ETA and when to poll next; the ticket is the credential" })
  @ApiOkResponse({ type: TicketStatusView })
  @ApiResponse({ status: 400, description: 'TICKET_INVALID: not a ticket this service signed for this product' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @ApiResponse(RATE_LIMITED("this ticket's (RATE_LIMIT_PER_SECOND)"))
  @ApiResponse(UNAVAILABLE)
  async poll(@Param('id', ParseIdPipe) productId: string, @Param('ticket') ticket: string): Promise<TicketStatusView> {
    const claims = await this.limit.poll(productId, ticket);
    return this.room.poll(productId, ticket, claims);
  }

  @Get(':id/queue')
  @Public()
  @ApiOperation({ summary: "The queue's public figures and the seed of its start-of-sale shuffle" })
  @ApiOkResponse({ type: QueueSummaryView })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  @ApiResponse(RATE_LIMITED("this client address's (QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS)"))
  @ApiResponse(UNAVAILABLE)
  async summary(@Param('id', ParseIdPipe) productId: string, @Ip() address: string): Promise<QueueSummary> {
    await this.limit.summary(address);
    return this.room.summary(productId);
  }
}
