import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../../auth/auth.decorators';
import { AuthUser } from '../../auth/auth.types';
import { parseIdempotencyKey } from '../purchase-pipeline';
import { OrderRouteLimit, RouteBudget } from '../order-route-limit';
import { PurchaseStatusQuery } from './purchase-status.query';
import { PurchaseStatusService } from './purchase-status.service';
import { PurchaseStatusView } from './purchase-status.view';
import { PurchaseStatusRoute } from '../purchase-route.decorator';

@ApiTags('storefront')
@ApiBearerAuth()
@Controller('purchases')
export class PurchasesController {
  constructor(private readonly purchases: PurchaseStatusService) {}

  @Get(':purchaseId')
  @PurchaseStatusRoute()
  @RouteBudget('purchase.status')
  @UseGuards(OrderRouteLimit)
  @ApiOperation({
    summary:
      "What became of a purchase (its buyer, or an admin naming the buyer or shown every buyer's): PENDING, CREATED with the order, or REFUSED with the code",
  })
  @ApiOkResponse({ type: PurchaseStatusView })
  @ApiResponse({ status: 403, description: 'FORBIDDEN: a user naming another user in userId' })
  @ApiNotFoundResponse({
    description: 'PURCHASE_NOT_FOUND: no order and no pending purchase with this id for this buyer',
  })
  @ApiResponse({
    status: 429,
    description: "RATE_LIMITED: this caller's budget for the route is spent (RATE_LIMIT_PER_SECOND), with Retry-After",
  })
  status(
    @CurrentUser() user: AuthUser,
    @Param('purchaseId') purchaseId: string,
    @Query() query: PurchaseStatusQuery,
  ): Promise<PurchaseStatusView> {
    // Purchase ids are Idempotency-Keys or generated ids, which follow the same pattern.
    return this.purchases.status(user, parseIdempotencyKey(purchaseId)!, query.userId);
  }
}
