import { Module } from '@nestjs/common';
import { ProductLock } from './product-lock';
import { StockLedger } from './stock-ledger';

/**
 * Where units live and how they are written: a product's (or segment's) lock with its fence, and
 * the fenced stock statements outside purchase_batch. Inventory and orders both go through it.
 */
@Module({
  providers: [ProductLock, StockLedger],
  exports: [ProductLock, StockLedger],
})
export class StockModule {}
