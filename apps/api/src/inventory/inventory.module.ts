import { Module } from '@nestjs/common';
import { ThrottlingModule } from '../common/throttling/throttling.module';
import { AdminProductsController } from './admin-products.controller';
import { InventoryService } from './inventory.service';
import { ProductCache, ProductCatalog } from './product-catalog.service';
import { ProductIdRange } from './product-id-range';
import { ProductsController } from './products.controller';
import { SoldOutFlags } from './sold-out-flags';
import { StockModule } from '../stock/stock.module';

@Module({
  imports: [StockModule, ThrottlingModule],
  controllers: [AdminProductsController, ProductsController],
  providers: [InventoryService, ProductCatalog, ProductCache, ProductIdRange, SoldOutFlags],
  exports: [InventoryService, ProductCatalog, SoldOutFlags, StockModule],
})
export class InventoryModule {}
