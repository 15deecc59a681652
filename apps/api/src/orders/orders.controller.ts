import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import { AuthUser } from '../auth/auth.types';
import { ParseIdPipe } from '../common/parse-id.pipe';
import { ListOrdersQuery } from './dto/list-orders.query';
import { OrderPageView } from './order-page.view';
import { OrderView } from './order.view';
import { OrdersService } from './orders.service';

@ApiTags('orders')
@ApiBearerAuth()
@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @ApiOperation({ summary: 'Orders, newest first: a customer sees their own, an admin sees all' })
  @ApiOkResponse({ type: OrderPageView })
  list(@CurrentUser() user: AuthUser, @Query() query: ListOrdersQuery): Promise<OrderPageView> {
    return this.orders.list(user, query);
  }

  @Get(':id')
  @ApiOperation({ summary: "One order (the customer's own, or any for an admin)" })
  @ApiOkResponse({ type: OrderView })
  @ApiForbiddenResponse({ description: 'FORBIDDEN: another customer\'s order' })
  @ApiNotFoundResponse({ description: 'ORDER_NOT_FOUND' })
  get(@CurrentUser() user: AuthUser, @Param('id', ParseIdPipe) id: string): Promise<OrderView> {
    return this.orders.get(user, id);
  }

  @Post(':id/pay')
  @HttpCode(200)
  @ApiOperation({ summary: 'Pay a pending order (its own customer only)' })
  @ApiOkResponse({ type: OrderView })
  @ApiConflictResponse({ description: 'INVALID_ORDER_STATE' })
  pay(@CurrentUser() user: AuthUser, @Param('id', ParseIdPipe) id: string): Promise<OrderView> {
    return this.orders.pay(user, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a live order; its stock goes back on sale' })
  @ApiOkResponse({ type: OrderView })
  @ApiConflictResponse({ description: 'INVALID_ORDER_STATE' })
  cancel(@CurrentUser() user: AuthUser, @Param('id', ParseIdPipe) id: string): Promise<OrderView> {
    return this.orders.cancel(user, id);
  }
}
