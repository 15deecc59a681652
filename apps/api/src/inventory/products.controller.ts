import { Controller, Get, Headers, Inject, Param, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiHeader, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { ParseIdPipe } from '../common/parse-id.pipe';
import { TypedConfigService } from '../config/app-config.module';
import { ifNoneMatchHits, publicCacheControl, weakEtag } from '../http/conditional-get';
import { ProductCatalog } from './product-catalog.service';
import { ProductView } from './product.view';

const CACHE_HEADERS = {
  'Cache-Control': { description: 'public, max-age=PRODUCT_CACHE_MAX_AGE_S, stale-while-revalidate=PRODUCT_CACHE_SWR_S', schema: { type: 'string', example: 'public, max-age=2, stale-while-revalidate=10' } },
  ETag: { description: 'weak validator of this representation; send it back in If-None-Match', schema: { type: 'string', example: 'W/"q3Zr0yQ9c1n0Gf1bS7f2oVvQk4M"' } },
};

@ApiTags('storefront')
@Controller('products')
export class ProductsController {
  /**
   * Product pages are the most refreshed route of a sale: a CDN, proxy or browser in front may
   * answer them for max-age seconds, then serve the stale page for up to stale-while-revalidate
   * more while it revalidates (a 304 when the product has not changed). Errors stay no-store.
   */
  private readonly cacheControl: string;

  constructor(
    private readonly catalog: ProductCatalog,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    const { maxAgeS, staleWhileRevalidateS } = config.get('edge', { infer: true }).productCache;
    this.cacheControl = publicCacheControl(maxAgeS, staleWhileRevalidateS);
  }

  @Get(':id')
  @Public()
  @ApiOperation({ summary: 'A product with its remaining stock (cached; rebuilt by one reader at a time); cacheable at the edge, revalidates to 304' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'the ETag of a copy you hold: 304 without a body while it is current' })
  @ApiOkResponse({ type: ProductView, headers: CACHE_HEADERS })
  @ApiResponse({ status: 304, description: 'Not Modified: the copy named by If-None-Match is current (no body)', headers: CACHE_HEADERS })
  @ApiNotFoundResponse({ description: 'PRODUCT_NOT_FOUND' })
  async get(
    @Param('id', ParseIdPipe) id: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProductView | undefined> {
    const view = await this.catalog.getView(id);
    const etag = weakEtag(JSON.stringify(view));
    void reply.header('cache-control', this.cacheControl).header('etag', etag);
    if (!ifNoneMatchHits(ifNoneMatch, etag)) return view;
    void reply.status(304);
    return undefined;
  }
}
