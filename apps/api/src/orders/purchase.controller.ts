import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { PurchaseDto } from './dto/purchase.dto';
import { OrderView } from './order.view';
import { PurchaseService } from './purchase.service';
import { PurchaseAnswer, ResultOrRefusal } from './purchase-answer';
import type { Purchase } from './purchase-pipeline';
import { PurchasePendingView } from './purchase-outcome/purchase-pending.view';
import { PurchaseRoute } from './purchase-route.decorator';

/**
 * The purchase route. Every decision before the purchase is batched (token, request, rate, sale
 * terms, sold out, overload, waiting room) was made by PurchasePipeline in the preHandler hook that
 * @PurchaseRoute() gives this route, which answered any refusal itself; what reaches this handler
 * is a purchase to serve.
 */
@ApiTags('storefront')
@ApiBearerAuth()
@Controller('products')
export class PurchaseController {
  constructor(
    private readonly purchases: PurchaseService,
    private readonly answer: PurchaseAnswer,
  ) {}

  @Post(':id/purchase')
  @PurchaseRoute()
  @HttpCode(201)
  @ApiParam({ name: 'id', description: 'the product id (a positive integer)' })
  @ApiOperation({ summary: 'Buy units of a product; 201 only once the order is committed' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'retries with the same key return the first answer and deduct once',
  })
  @ApiHeader({
    name: 'Admission',
    required: false,
    description: "for a product with a waiting room: the `admission` of this buyer's ADMITTED ticket",
  })
  @ApiBody({ type: PurchaseDto, required: false })
  @ApiCreatedResponse({
    type: OrderView,
    headers: {
      'Purchase-Id': { description: "the purchase's id (every answer carries it)", schema: { type: 'string' } },
    },
  })
  @ApiResponse({
    status: 202,
    type: PurchasePendingView,
    description:
      "PURCHASE_PENDING: the database's answer was lost and its outcome could not be learnt in time; GET the Location (/purchases/:purchaseId) after Retry-After",
  })
  @ApiConflictResponse({ description: 'SOLD_OUT or PER_USER_LIMIT' })
  @ApiResponse({
    status: 403,
    description:
      'SALE_NOT_ACTIVE; NOT_ADMITTED (a product with a waiting room, without a valid Admission for this buyer)',
  })
  @ApiResponse({ status: 422, description: 'IDEMPOTENCY_KEY_REUSED' })
  @ApiResponse({
    status: 429,
    description:
      "RATE_LIMITED, with Retry-After: this user's per-second budget is spent, or this purchase came before the Retry-After of this user's last 429/503 for this product",
  })
  @ApiResponse({
    status: 503,
    description:
      'OVERLOADED: this instance cannot answer within PURCHASE_DEADLINE_MS of arrival, so it refused at once and did nothing ' +
      '(Retry-After: seconds until its present backlog clears); LOCK_TIMEOUT or DEPENDENCY_UNAVAILABLE, with Retry-After',
  })
  async purchase(@Req() request: FastifyRequest & { purchase: Purchase }, @Res() reply: FastifyReply): Promise<void> {
    const { purchase } = request;
    await this.answer.write(reply, purchase, await this.serve(purchase));
  }

  /** The purchase's result, or the error that refused it: PurchaseAnswer answers either through the error policy. */
  private async serve(purchase: Purchase): Promise<ResultOrRefusal> {
    try {
      return { result: await this.purchases.purchase(purchase) };
    } catch (error) {
      return { error };
    }
  }
}
