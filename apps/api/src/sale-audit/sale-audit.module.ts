import { Module } from '@nestjs/common';
import { InventoryModule } from '../inventory/inventory.module';
import { WaitingRoomModule } from '../waiting-room/waiting-room.module';
import { QueueAudits } from './queue-audit.service';
import { SaleAuditController } from './sale-audit.controller';

/**
 * A sale nobody can rig: the public audit of its queue, checked offline against the commitment it
 * published at creation (scripts/queue-order). The draws themselves (SaleDraws) are the admission
 * leader's, provided by WaitingRoomModule.
 */
@Module({
  imports: [InventoryModule, WaitingRoomModule],
  controllers: [SaleAuditController],
  providers: [QueueAudits],
})
export class SaleAuditModule {}
