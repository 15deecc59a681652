import { Body, Controller, Headers, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiBearerAuth, ApiBody, ApiConflictResponse, ApiCreatedResponse, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import { AuthUser } from '../auth/auth.types';
import { ParseIdPipe } from '../common/parse-id.pipe';
import { PurchaseThrottlerGuard } from './early-refusal/purchase-throttler.guard';
import { WaitingRoomAdmissionGuard } from '../waiting-room/admission.guard';
import { PurchaseDto } from './dto/purchase.dto';
import { PurchaseBody, PurchaseBodyPipe } from './dto/purchase-body.pipe';
import { parseIdempotencyKey } from './idempotency-key';
import { OrderView } from './order.view';
import { PurchaseService } from './purchase.service';
import { PurchaseMetrics } from './purchase.metrics';
import { ArrivedAt } from './admission/arrived-at.decorator';
import { PurchaseId } from './purchase-outcome/purchase-id.decorator';
import { PENDING_RETRY_AFTER_S, purchasePending, PurchasePendingView } from './purchase-outcome/purchase-pending.view';

@ApiTags('storefront')
@ApiBearerAuth()
@Controller('products')
export class PurchaseController {
  constructor(
    private readonly purchases: PurchaseService,
    private readonly metrics: PurchaseMetrics,
  ) {}

  @Post(':id/purchase')
  @HttpCode(201)
  @UseGuards(PurchaseThrottlerGuard, WaitingRoomAdmissionGuard)
  @ApiOperation({ summary: 'Buy units of a product; 201 only once the order is committed' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'retries with the same key return the first answer and deduct once' })
  @ApiHeader({ name: 'Admission', required: false, description: "for a product with a waiting room: the `admission` of this buyer's ADMITTED ticket" })
  @ApiBody({ type: PurchaseDto, required: false })
  @ApiCreatedResponse({ type: OrderView, headers: { 'Purchase-Id': { description: "the purchase's id (every answer carries it)", schema: { type: 'string' } } } })
  @ApiResponse({
    status: 202,
    type: PurchasePendingView,
    description: "PURCHASE_PENDING: the database's answer was lost and its outcome could not be learnt in time; GET the Location (/purchases/:purchaseId) after Retry-After",
  })
  @ApiConflictResponse({ description: 'SOLD_OUT or PER_USER_LIMIT' })
  @ApiResponse({ status: 403, description: 'SALE_NOT_ACTIVE; NOT_ADMITTED (a product with a waiting room, without a valid Admission for this buyer)' })
  @ApiResponse({ status: 422, description: 'IDEMPOTENCY_KEY_REUSED' })
  @ApiResponse({ status: 429, description: 'RATE_LIMITED, with Retry-After' })
  @ApiResponse({
    status: 503,
    description:
      'OVERLOADED: this instance cannot answer within PURCHASE_DEADLINE_MS of arrival, so it refused at once and did nothing ' +
      '(Retry-After: seconds until its present backlog clears); LOCK_TIMEOUT or DEPENDENCY_UNAVAILABLE, with Retry-After',
  })
  async purchase(
    @PurchaseId() purchaseId: string,
    @Param('id', ParseIdPipe) productId: string,
    @Body(PurchaseBodyPipe) body: PurchaseBody,
    @Headers('idempotency-key') rawKey: string | undefined,
    @CurrentUser() user: AuthUser,
    @ArrivedAt() arrivedAt: number,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OrderView | PurchasePendingView> {
    const idempotencyKey = parseIdempotencyKey(rawKey);
    const result = await this.metrics.track(() => this.purchases.purchase({ user, productId, quantity: body.quantity, idempotencyKey, purchaseId, arrivedAt }));
    if (result.kind === 'order') return result.order;
    void reply.status(202).header('Location', `/purchases/${encodeURIComponent(result.purchaseId)}`).header('Retry-After', String(PENDING_RETRY_AFTER_S));
    return purchasePending(result.purchaseId);
  }
}
