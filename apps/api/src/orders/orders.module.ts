import { Module } from '@nestjs/common';
import { InventoryModule } from '../inventory/inventory.module';
import { ThrottlingModule } from '../common/throttling/throttling.module';
import { OrderLock } from '../common/locking/order-lock';
import { HotStatements } from '../database/hot-statements';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { OrderExpiryService } from './order-expiry.service';
import { OrderRepository } from './order-repository';
import { OrderRouteLimit } from './order-route-limit';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { PurchaseAdmission } from './admission/purchase-admission';
import { PurchaseBatcher } from './purchase-batcher';
import { SegmentRouter } from './segment-router';
import { PurchaseController } from './purchase.controller';
import { PurchaseMetrics } from './purchase.metrics';
import { PurchaseService } from './purchase.service';
import { QuotaLedger } from './quota-ledger';

@Module({
  imports: [InventoryModule, ThrottlingModule],
  controllers: [PurchaseController, OrdersController],
  providers: [HotStatements, PurchaseService, PurchaseAdmission, PurchaseBatcher, SegmentRouter, PurchaseMetrics, OrderRepository, QuotaLedger, OrdersService, OrderLock, OrderExpiryService, OrderRouteLimit, RedisKeyPrefix],
})
export class OrdersModule {}
