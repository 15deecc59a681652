import { Module } from '@nestjs/common';
import { ProductLock } from '../common/locking/product-lock';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { AdminProductsController } from './admin-products.controller';
import { InventoryService } from './inventory.service';
import { ProductCache } from './product-cache';
import { ProductCatalog } from './product-catalog.service';
import { ProductsController } from './products.controller';
import { SoldOutFlags } from './sold-out-flags';
import { StockLedger } from './stock-ledger';

@Module({
  controllers: [AdminProductsController, ProductsController],
  providers: [InventoryService, ProductCatalog, ProductCache, SoldOutFlags, StockLedger, ProductLock, RedisKeyPrefix],
  exports: [InventoryService, ProductCatalog, SoldOutFlags, ProductLock],
})
export class InventoryModule {}
