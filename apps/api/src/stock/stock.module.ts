import { Module } from '@nestjs/common';
import { FenceRepair } from './fence-repair';
import { StockLedger } from './stock-ledger';

/**
 * Where units live and how they are written: a product's (or segment's) lock with its fence, and
 * the fenced stock statements outside purchase_batch. Inventory and orders both go through it.
 */
@Module({
  providers: [FenceRepair, StockLedger],
  exports: [FenceRepair, StockLedger],
})
export class StockModule {}
