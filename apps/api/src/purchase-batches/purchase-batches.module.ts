import { Module } from '@nestjs/common';
import { PurchaseBatches } from './purchase-batches.service';
import { PurchaseDeadlines } from './purchase-deadline';

/**
 * The per-unit purchase batchers of this instance and the purchases' deadlines. Below orders and
 * the waiting room: orders batch purchases here, the waiting room reads the batchers' measured
 * pace to admit buyers.
 */
@Module({
  providers: [PurchaseBatches, PurchaseDeadlines],
  exports: [PurchaseBatches, PurchaseDeadlines],
})
export class PurchaseBatchesModule {}
