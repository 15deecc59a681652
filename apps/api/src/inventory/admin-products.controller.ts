import { Body, Controller, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { RequireRole } from '../auth/auth.decorators';
import { ParseIdPipe } from '../common/parse-id.pipe';
import { CreateProductDto } from './dto/create-product.dto';
import { SetStockDto } from './dto/set-stock.dto';
import { InventoryService } from './inventory.service';
import { ProductView } from './product.view';

@ApiTags('admin')
@ApiBearerAuth()
@ApiForbiddenResponse({ description: 'FORBIDDEN: not an admin' })
@RequireRole('admin')
@Controller('admin/products')
export class AdminProductsController {
  constructor(private readonly inventory: InventoryService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a product with its initial stock' })
  @ApiCreatedResponse({ type: ProductView })
  @ApiConflictResponse({ description: 'DUPLICATE_SKU' })
  create(@Body() dto: CreateProductDto): Promise<ProductView> {
    return this.inventory.create(dto);
  }

  @Put(':id/stock')
  @ApiOperation({ summary: 'Set the units still for sale (absolute), under the product lock' })
  @ApiOkResponse({ type: ProductView })
  setStock(@Param('id', ParseIdPipe) id: string, @Body() dto: SetStockDto): Promise<ProductView> {
    return this.inventory.setStock(id, dto.stock);
  }
}
