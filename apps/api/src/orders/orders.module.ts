import { Module } from '@nestjs/common';
import { InventoryModule } from '../inventory/inventory.module';
import { ThrottlingModule } from '../common/throttling/throttling.module';
import { HotStatements } from '../database/statements';
import { OrderExpiryService } from './order-expiry.service';
import { OrderRepository } from './order-repository';
import { OrderRouteLimit } from './order-route-limit';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';
import { SegmentRouter } from './segment-router';
import { StockService } from '../stock/stock.service';
import { PurchasePipeline } from './purchase-pipeline';
import { PurchaseAnswer } from './purchase-answer';
import { PurchaseBatchesModule } from '../purchase-batches/purchase-batches.module';
import { WaitingRoomModule } from '../waiting-room/waiting-room.module';
import { PurchaseController } from './purchase.controller';
import { PurchaseService } from './purchase.service';
import { QuotaLedger } from './quota-ledger';
import { AttemptPruner } from './purchase-outcome/attempt-pruner';
import { AttemptSettlement } from './purchase-outcome/attempt-settlement';
import { PendingPurchases } from './purchase-outcome/pending-purchases';
import { PurchasesController } from './purchase-outcome/purchases.controller';
import { PurchaseStatusService } from './purchase-outcome/purchase-status.service';
import { UsedPurchaseKeys } from './used-purchase-keys';

@Module({
  imports: [InventoryModule, ThrottlingModule, PurchaseBatchesModule, WaitingRoomModule],
  controllers: [PurchaseController, PurchasesController, OrdersController],
  providers: [
    HotStatements,
    PurchaseService,
    PurchasePipeline,
    StockService,
    PurchaseAnswer,
    SegmentRouter,
    OrderRepository,
    QuotaLedger,
    OrdersService,
    OrderExpiryService,
    OrderRouteLimit,
    AttemptSettlement,
    AttemptPruner,
    PendingPurchases,
    PurchaseStatusService,
    UsedPurchaseKeys,
  ],
})
export class OrdersModule {}
