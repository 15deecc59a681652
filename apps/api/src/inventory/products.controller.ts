import { Controller, Get, Headers, Inject, Ip, Param, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiHeader, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { productNotFound } from '../common/errors/app.exception';
import { ParseIdPipe } from '../common/parse-id.pipe';
import { PublicRouteLimit } from '../common/throttling/public-route-limit';
import { TypedConfigService } from '../config/app-config.module';
import { ifNoneMatchHits, publicCacheControl, weakEtag } from '../http/conditional-get';
import { ProductCatalog } from './product-catalog.service';
import { ProductView } from './product.view';

const CACHE_HEADERS = {
  'Cache-Control': {
    description: 'public, max-age=PRODUCT_CACHE_MAX_AGE_S, stale-while-revalidate=PRODUCT_CACHE_SWR_S',
    schema: { type: 'string', example: 'public, max-age=2, stale-while-revalidate=10' },
  },
  ETag: {
    description: 'weak validator of this representation; send it back in If-None-Match',
    schema: { type: 'string', example: 'W/"q3Zr0yQ9c1n0Gf1bS7f2oVvQk4M"' },
  },
};
const NOT_FOUND_HEADERS = {
  'Cache-Control': {
    description: 'public, max-age=PRODUCT_CACHE_MAX_AGE_S: a cache in front may answer the same id for that long',
    schema: { type: 'string', example: 'public, max-age=2' },
  },
};

@ApiTags('storefront')
@Controller('products')
export class ProductsController {
  /**
   * Product pages are the most refreshed route of a sale: a CDN, proxy or browser in front may
   * answer them for max-age seconds, then serve the stale page for up to stale-while-revalidate
   * more while it revalidates (a 304 when the product has not changed).
   */
  private readonly cacheControl: string;
  /**
   * "No such product" may be cached as long as a page (never served stale), so that a cache in
   * front absorbs repeated asks for a missing id. Every other error stays no-store.
   */
  private readonly notFoundCacheControl: string;

  constructor(
    private readonly catalog: ProductCatalog,
    private readonly limit: PublicRouteLimit,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    const { maxAgeS, staleWhileRevalidateS } = config.get('edge', { infer: true }).productCache;
    this.cacheControl = publicCacheControl(maxAgeS, staleWhileRevalidateS);
    this.notFoundCacheControl = `public, max-age=${maxAgeS}`;
  }

  @Get(':id')
  @Public()
  @ApiOperation({
    summary:
      'A product with its remaining stock (cached; rebuilt by one reader at a time); cacheable at the edge, revalidates to 304',
  })
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'the ETag of a copy you hold: 304 without a body while it is current',
  })
  @ApiOkResponse({ type: ProductView, headers: CACHE_HEADERS })
  @ApiResponse({
    status: 304,
    description: 'Not Modified: the copy named by If-None-Match is current (no body)',
    headers: CACHE_HEADERS,
  })
  @ApiNotFoundResponse({
    description: 'PRODUCT_NOT_FOUND (cacheable for PRODUCT_CACHE_MAX_AGE_S)',
    headers: NOT_FOUND_HEADERS,
  })
  @ApiResponse({
    status: 429,
    description:
      "RATE_LIMITED: this client address's budget for the route (PUBLIC_READS_PER_SECOND_PER_ADDRESS) is spent, with Retry-After",
  })
  async get(
    @Param('id', ParseIdPipe) id: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Ip() address: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProductView | undefined> {
    // Before any read: a refused request costs one counter hit, never a cache read or a query.
    await this.limit.spend('product.read', address);
    const view = await this.catalog.findView(id);
    if (!view) {
      void reply.header('cache-control', this.notFoundCacheControl);
      throw productNotFound(id);
    }
    const etag = weakEtag(JSON.stringify(view));
    void reply.header('cache-control', this.cacheControl).header('etag', etag);
    if (!ifNoneMatchHits(ifNoneMatch, etag)) return view;
    void reply.status(304);
    return undefined;
  }
}
