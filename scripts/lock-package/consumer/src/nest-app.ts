// A minimal Nest application: the module, @WithLock on a provider, CurrentLock.fence, and the
// fake from the package's testing entry point.
import 'reflect-metadata';
import { Controller, Injectable, Module, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import {
  CurrentLock,
  DistributedLockModule,
  DistributedLockService,
  LockTimeoutError,
  WithLock,
} from '@flash-sale/distributed-lock';
import { FakeDistributedLockService } from '@flash-sale/distributed-lock/testing';
import { assert, check } from './check.js';

@Injectable()
class Stock {
  constructor(private readonly current: CurrentLock) {}

  @WithLock('stock:<productId>', { waitMs: 2000 })
  async reserve(_input: { productId: string }): Promise<number> {
    return this.current.fence;
  }
}

// `<id>` comes from the argument bound with @Param('id'), read from Nest's route metadata.
@Controller('products')
class Purchases {
  constructor(private readonly current: CurrentLock) {}

  @Post(':id/purchase')
  @WithLock('stock:<id>')
  async purchase(_query: { id: string }, @Param('id') _id: string): Promise<string | undefined> {
    return this.current.find()?.key;
  }
}

@Module({
  controllers: [Purchases],
  imports: [
    DistributedLockModule.forRootAsync({
      useFactory: () => ({
        redisFactory: () => new Redis(Number(process.env.REDIS_PORT), '127.0.0.1', { maxRetriesPerRequest: 1 }),
      }),
    }),
  ],
  providers: [Stock],
})
class AppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  try {
    await check('@WithLock on a provider hands the method CurrentLock.fence', async () => {
      const stock = app.get(Stock);
      const first = await stock.reserve({ productId: 'p1' });
      const second = await stock.reserve({ productId: 'p1' });
      assert.ok(first > 0 && second > first, `fences ${first} then ${second}`);
    });
    await check(
      "@WithLock takes a placeholder from the @Param('id') argument before an object's property",
      async () => {
        assert.equal(await app.get(Purchases).purchase({ id: 'from-object' }, 'from-param'), 'stock:from-param');
      },
    );
    await check('DistributedLockService: tryAcquire null while held, LockTimeoutError after waitMs', async () => {
      const locks = app.get(DistributedLockService);
      const held = await locks.acquire('stock:p2');
      const other = new Redis(Number(process.env.REDIS_PORT), '127.0.0.1');
      const rivalApp = await NestFactory.createApplicationContext(
        DistributedLockModule.forRoot({ redis: other, closeClientsOnShutdown: true }),
        { logger: false },
      );
      try {
        const rival = rivalApp.get(DistributedLockService);
        assert.equal(await rival.tryAcquire('stock:p2'), null);
        await assert.rejects(rival.acquire('stock:p2', { waitMs: 100 }), LockTimeoutError);
      } finally {
        await rivalApp.close();
        await held.release();
      }
    });
    await check('the fake from /testing locks in memory', async () => {
      const fake = new FakeDistributedLockService();
      const lock = await fake.acquire('stock:p3');
      assert.equal(fake.memory.isHeld('stock:p3'), true);
      await lock.release();
    });
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
