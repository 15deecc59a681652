import { Module } from '@nestjs/common';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { AdminProductsController } from './admin-products.controller';
import { InventoryService } from './inventory.service';
import { ProductCache, ProductCatalog } from './product-catalog.service';
import { ProductsController } from './products.controller';
import { SoldOutFlags } from './sold-out-flags';
import { StockModule } from '../stock/stock.module';

@Module({
  imports: [StockModule],
  controllers: [AdminProductsController, ProductsController],
  providers: [InventoryService, ProductCatalog, ProductCache, SoldOutFlags, RedisKeyPrefix],
  exports: [InventoryService, ProductCatalog, SoldOutFlags, StockModule],
})
export class InventoryModule {}
