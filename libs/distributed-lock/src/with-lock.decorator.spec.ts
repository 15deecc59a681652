import 'reflect-metadata';
import {
  Body,
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  HttpCode,
  Injectable,
  Param,
  ParseIntPipe,
  Post,
  UseGuards,
} from '@nestjs/common';
import { GUARDS_METADATA, HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { ApiOperation } from '@nestjs/swagger';
import { CurrentLock } from './current-lock';
import { DistributedLockService } from './distributed-lock.service';
import { LockKeyResolutionError } from './lock-key.resolver';
import { FakeDistributedLockService } from './testing';
import { WithLock } from './with-lock.decorator';

@Injectable()
class HeaderGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest().headers['x-allowed'] === 'yes';
  }
}

@Controller('products')
class ProductsController {
  constructor(private readonly current: CurrentLock) {}

  // Route and HTTP code applied after @WithLock (above it), guard and Swagger before (below it).
  @Post(':productId/purchase')
  @HttpCode(202)
  @WithLock('stock:<productId>', { waitMs: 1000 })
  @UseGuards(HeaderGuard)
  @ApiOperation({ summary: 'buy' })
  purchase(@Param('productId', ParseIntPipe) productId: number, @Body() body: { quantity: number }) {
    const lock = this.current.get();
    return { productId, quantity: body.quantity, key: lock.key, fence: this.current.fence };
  }

  @WithLock('order:<orderId>')
  @Get('orders/:orderId')
  show(@Param('orderId') orderId: string) {
    return { orderId, key: this.current.get().key };
  }
}

@Injectable()
class StockService {
  active = 0;
  maxActive = 0;
  constructor(private readonly current: CurrentLock) {}

  @WithLock('stock:<productId>')
  async reserve(_input: { productId: string }): Promise<number> {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    await new Promise((resolve) => setImmediate(resolve));
    this.active -= 1;
    return this.current.fence;
  }

  @WithLock('stock:<productId>')
  async outer(input: { productId: string }): Promise<[number, number]> {
    return [this.current.fence, await this.inner(input)];
  }

  @WithLock((input: { productId: string }) => `stock:${input.productId}`)
  async inner(_input: { productId: string }): Promise<number> {
    return this.current.fence;
  }
}

describe('@WithLock', () => {
  let app: NestFastifyApplication;
  let locks: FakeDistributedLockService;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [ProductsController],
      providers: [
        { provide: DistributedLockService, useClass: FakeDistributedLockService },
        CurrentLock,
        StockService,
        HeaderGuard,
      ],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    locks = app.get(DistributedLockService);
  });

  afterAll(() => app.close());

  it('keeps the metadata of decorators applied before and after it', () => {
    const handler = ProductsController.prototype.purchase;
    expect(Reflect.getMetadata(PATH_METADATA, handler)).toBe(':productId/purchase');
    expect(Reflect.getMetadata(METHOD_METADATA, handler)).toBeDefined();
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, handler)).toBe(202);
    expect(Reflect.getMetadata(GUARDS_METADATA, handler)).toEqual([HeaderGuard]);
    expect(Reflect.getMetadata('swagger/apiOperation', handler)).toEqual(expect.objectContaining({ summary: 'buy' }));
    expect(handler.name).toBe('purchase');
  });

  it('serves a locked route on Fastify with its route, pipe, guard and HTTP code', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/products/42/purchase',
      headers: { 'x-allowed': 'yes' },
      payload: { quantity: 2 },
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ productId: 42, quantity: 2, key: 'stock:42', fence: expect.any(Number) });
    expect(locks.memory.isHeld('stock:42')).toBe(false);
  });

  it('lets the guard refuse before any lock is taken', async () => {
    const acquired = jest.fn();
    const stop = locks.on('acquired', acquired);
    const response = await app.inject({ method: 'POST', url: '/products/42/purchase', payload: { quantity: 1 } });
    stop();
    expect(response.statusCode).toBe(403);
    expect(acquired).not.toHaveBeenCalled();
  });

  it('encodes a route parameter into the key', async () => {
    const response = await app.inject({ method: 'GET', url: '/products/orders/a%3Ab' });
    expect(response.json()).toEqual({ orderId: 'a:b', key: 'order:a%3Ab' });
  });

  it('serialises a provider method per key', async () => {
    const stock = app.get(StockService);
    const fences = await Promise.all(Array.from({ length: 20 }, () => stock.reserve({ productId: 'p1' })));
    expect(stock.maxActive).toBe(1);
    expect(new Set(fences).size).toBe(20);
  });

  it('re-enters the lock from a nested @WithLock method on the same key', async () => {
    const [outerFence, innerFence] = await app.get(StockService).outer({ productId: 'p2' });
    expect(innerFence).toBe(outerFence);
  });

  it('refuses an unresolvable key with a rejected promise, before any lock is taken', async () => {
    const using = jest.spyOn(locks, 'using');
    await expect(app.get(StockService).reserve({ productId: undefined as unknown as string })).rejects.toThrow(
      new LockKeyResolutionError(
        'Lock key placeholder <productId> of StockService.reserve resolved to undefined; expected a non-empty string, a finite number, a bigint or a boolean',
        'StockService.reserve',
      ),
    );
    expect(using).not.toHaveBeenCalled();
    using.mockRestore();
  });

  it('says what is wrong when the class was not created by Nest', async () => {
    await expect(new StockService({} as CurrentLock).reserve({ productId: 'x' })).rejects.toThrow(
      'DistributedLockService was not injected',
    );
  });
});
