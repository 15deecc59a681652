import { Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import { AuthUser } from '../auth/auth.types';
import { ParseIdPipe } from '../common/parse-id.pipe';
import { ListOrdersQuery } from './dto/list-orders.query';
import { OrderPageView } from './order-page.view';
import { OrderView } from './order.view';
import { OrdersService } from './orders.service';
import { OrderRouteLimit, RouteBudget } from './order-route-limit';
import { PaymentRouteConfig } from '../payments/payment-routes';

const DIRECT_PAYMENT_ROUTE: PaymentRouteConfig = { requires: 'PAYMENTS_DIRECT' };
const RATE_LIMITED =
  "RATE_LIMITED: this caller's budget for the route is spent (RATE_LIMIT_PER_SECOND), with Retry-After";
const LOST_REPLY =
  'DEPENDENCY_UNAVAILABLE: nothing was done (a lost database reply is read back before answering), with Retry-After';

@ApiTags('orders')
@ApiBearerAuth()
@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @RouteBudget('order.list')
  @UseGuards(OrderRouteLimit)
  @ApiOperation({ summary: 'Orders, newest first: a customer sees their own, an admin sees all' })
  @ApiOkResponse({ type: OrderPageView })
  @ApiResponse({ status: 429, description: RATE_LIMITED })
  list(@CurrentUser() user: AuthUser, @Query() query: ListOrdersQuery): Promise<OrderPageView> {
    return this.orders.list(user, query);
  }

  @Get(':id')
  @RouteBudget('order.get')
  @UseGuards(OrderRouteLimit)
  @ApiOperation({ summary: "One order (the customer's own, or any for an admin)" })
  @ApiOkResponse({ type: OrderView })
  @ApiForbiddenResponse({ description: "FORBIDDEN: another customer's order" })
  @ApiNotFoundResponse({ description: 'ORDER_NOT_FOUND' })
  @ApiResponse({ status: 429, description: RATE_LIMITED })
  get(@CurrentUser() user: AuthUser, @Param('id', ParseIdPipe) id: string): Promise<OrderView> {
    return this.orders.get(user, id);
  }

  @Post(':id/pay')
  @HttpCode(200)
  @RouteConfig(DIRECT_PAYMENT_ROUTE)
  @RouteBudget('order.pay')
  @UseGuards(OrderRouteLimit)
  @ApiOperation({
    summary: 'Pay a pending order without a payment provider (its own customer only)',
    description:
      'Served only when PAYMENTS_DIRECT=true (development and test by default); otherwise 404 like an unknown route, and payments arrive by POST /payments/webhook.',
  })
  @ApiOkResponse({ type: OrderView })
  @ApiForbiddenResponse({ description: "FORBIDDEN: another customer's order (checked before any lock)" })
  @ApiNotFoundResponse({ description: 'ORDER_NOT_FOUND, or NOT_FOUND when PAYMENTS_DIRECT is off' })
  @ApiConflictResponse({ description: 'INVALID_ORDER_STATE' })
  @ApiResponse({ status: 429, description: RATE_LIMITED })
  @ApiResponse({ status: 503, description: LOST_REPLY })
  pay(@CurrentUser() user: AuthUser, @Param('id', ParseIdPipe) id: string): Promise<OrderView> {
    return this.orders.pay(user, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @RouteBudget('order.cancel')
  @UseGuards(OrderRouteLimit)
  @ApiOperation({
    summary:
      'Cancel an order: its customer while PENDING_PAYMENT, an admin also when PAID (a refund); stock and quota return',
  })
  @ApiOkResponse({ type: OrderView })
  @ApiForbiddenResponse({ description: "FORBIDDEN: another customer's order (checked before any lock)" })
  @ApiNotFoundResponse({ description: 'ORDER_NOT_FOUND' })
  @ApiConflictResponse({
    description: 'INVALID_ORDER_STATE: not cancellable by this caller (a customer cannot cancel a PAID order)',
  })
  @ApiResponse({ status: 429, description: RATE_LIMITED })
  @ApiResponse({ status: 503, description: LOST_REPLY })
  cancel(@CurrentUser() user: AuthUser, @Param('id', ParseIdPipe) id: string): Promise<OrderView> {
    return this.orders.cancel(user, id);
  }
}
