import { Controller, Get, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { ParseIdPipe } from '../common/parse-id.pipe';
import { ProductCatalog } from './product-catalog.service';
import { ProductView } from './product.view';

@ApiTags('storefront')
@Controller('products')
export class ProductsController {
  constructor(private readonly catalog: ProductCatalog) {}

  @Get(':id')
  @Public()
  @ApiOperation({ summary: 'A product with its remaining stock (cached; rebuilt by one reader at a time)' })
  @ApiOkResponse({ type: ProductView })
  @ApiNotFoundResponse({ description: 'PRODUCT_NOT_FOUND' })
  get(@Param('id', ParseIdPipe) id: string): Promise<ProductView> {
    return this.catalog.getView(id);
  }
}
