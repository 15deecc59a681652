import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { ThrottlingModule } from '../common/throttling/throttling.module';
import { InventoryModule } from '../inventory/inventory.module';
import { AdmissionLeader } from './admission-leader.service';
import { AdmissionGate } from './admission-gate';
import { PurchaseBatchesModule } from '../purchase-batches/purchase-batches.module';
import { QueueStore } from './queue-store';
import { SaleSeeds } from './sale-seeds';
import { TicketSigner } from './ticket-signer';
import { WAITING_ROOM_KEY } from './waiting-room.constants';
import { WaitingRoomController } from './waiting-room.controller';
import { WaitingRoomMetrics } from './waiting-room.metrics';
import { waitingRoomKey } from './waiting-room-secret';
import { WaitingRoomService } from './waiting-room.service';
import { QueueRouteLimit } from './queue-route-limit';
import { JoinWork } from './join-work/join-work';
import { SaleDraws } from '../sale-audit/sale-draws.service';

/**
 * The waiting room in front of products that opt in. The purchase pipeline (OrdersModule) takes a
 * buyer's admission through AdmissionGate; the admission leader paces buyers by the purchase
 * batchers' measured service (PurchaseBatchesModule).
 */
@Module({
  imports: [InventoryModule, PurchaseBatchesModule, ThrottlingModule],
  controllers: [WaitingRoomController],
  providers: [
    {
      provide: WAITING_ROOM_KEY,
      inject: [ConfigService],
      useFactory: (config: TypedConfigService) =>
        waitingRoomKey(config.get('waitingRoom', { infer: true }).secret, config.get('jwtSecret', { infer: true })),
    },
    { provide: TicketSigner, inject: [WAITING_ROOM_KEY], useFactory: (key: Buffer) => new TicketSigner(key) },
    { provide: JoinWork, inject: [WAITING_ROOM_KEY], useFactory: (key: Buffer) => new JoinWork(key) },
    QueueStore,
    SaleSeeds,
    SaleDraws,
    WaitingRoomMetrics,
    WaitingRoomService,
    QueueRouteLimit,
    AdmissionGate,
    AdmissionLeader,
  ],
  exports: [QueueStore, TicketSigner, AdmissionGate, SaleDraws, QueueRouteLimit],
})
export class WaitingRoomModule {}
