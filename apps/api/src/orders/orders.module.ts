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
import { AttemptPruner } from './purchase-outcome/attempt-pruner';
import { EarlyRefusals } from './early-refusal/early-refusals';
import { PurchaseThrottlerGuard } from './early-refusal/purchase-throttler.guard';
import { AttemptSettlement } from './purchase-outcome/attempt-settlement';
import { PendingPurchases } from './purchase-outcome/pending-purchases';
import { PurchasesController } from './purchase-outcome/purchases.controller';
import { PurchaseStatusService } from './purchase-outcome/purchase-status.service';

@Module({
  imports: [InventoryModule, ThrottlingModule],
  controllers: [PurchaseController, PurchasesController, OrdersController],
  providers: [
    HotStatements,
    PurchaseService,
    PurchaseAdmission,
    PurchaseBatcher,
    SegmentRouter,
    PurchaseMetrics,
    OrderRepository,
    QuotaLedger,
    OrdersService,
    OrderLock,
    OrderExpiryService,
    OrderRouteLimit,
    RedisKeyPrefix,
    AttemptSettlement,
    AttemptPruner,
    PendingPurchases,
    PurchaseStatusService,
    EarlyRefusals,
    PurchaseThrottlerGuard,
  ],
})
export class OrdersModule {}
