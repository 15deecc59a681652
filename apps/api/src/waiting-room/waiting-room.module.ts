import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { InventoryModule } from '../inventory/inventory.module';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { AdmissionLeader } from './admission-leader.service';
import { WaitingRoomAdmissionGuard } from './admission.guard';
import { PurchaseReceipts } from './purchase-receipts';
import { QueueStore } from './queue-store';
import { TicketSigner } from './ticket-signer';
import { WAITING_ROOM_KEY } from './waiting-room.constants';
import { WaitingRoomController } from './waiting-room.controller';
import { WaitingRoomMetrics } from './waiting-room.metrics';
import { waitingRoomKey } from './waiting-room-secret';
import { WaitingRoomService } from './waiting-room.service';
import { QueueRouteLimit } from './queue-route-limit';

/**
 * The waiting room in front of products that opt in. Global so that the purchase route (in
 * OrdersModule) can use WaitingRoomAdmissionGuard with its dependencies.
 */
@Global()
@Module({
  imports: [InventoryModule],
  controllers: [WaitingRoomController],
  providers: [
    {
      provide: WAITING_ROOM_KEY,
      inject: [ConfigService],
      useFactory: (config: TypedConfigService) => waitingRoomKey(config.get('waitingRoom', { infer: true }).secret, config.get('jwtSecret', { infer: true })),
    },
    { provide: TicketSigner, inject: [WAITING_ROOM_KEY], useFactory: (key: Buffer) => new TicketSigner(key) },
    QueueStore,
    RedisKeyPrefix,
    WaitingRoomMetrics,
    WaitingRoomService,
    QueueRouteLimit,
    WaitingRoomAdmissionGuard,
    PurchaseReceipts,
    AdmissionLeader,
  ],
  exports: [QueueStore, TicketSigner, WaitingRoomAdmissionGuard],
})
export class WaitingRoomModule {}
