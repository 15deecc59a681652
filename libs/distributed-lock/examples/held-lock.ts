import 'reflect-metadata';
import { strict as assert } from 'node:assert';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import { DistributedLockModule, HeldLock, WithLock, type Lock } from '@flash-sale/distributed-lock';
import { StockTable } from './stock-table.js';

interface Batch {
  productId: string;
  units: number;
  lockWaitMs: number;
}

@Injectable()
export class BatchCommitter {
  constructor(private readonly stock: StockTable) {}

  // README:begin
  @WithLock('stock:<productId>', { reentrant: false, fenced: true, waitMs: (batch: Batch) => batch.lockWaitMs })
  async commitBatch(batch: Batch, @HeldLock() lock?: Lock): Promise<boolean> {
    return this.stock.take(batch.productId, batch.units, lock ? lock.fence : Number.MAX_SAFE_INTEGER);
  }
  // README:end
}

@Module({
  imports: [DistributedLockModule.forRoot({ redisFactory: () => new Redis(process.env.REDIS_URL!) })],
  providers: [BatchCommitter, { provide: StockTable, useValue: new StockTable({ '9': 3 }) }],
})
class AppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const committer = app.get(BatchCommitter);
  // The caller passes nothing for the @HeldLock() parameter: the decorator fills it.
  const taken = await Promise.all(
    [2, 2].map((units) => committer.commitBatch({ productId: '9', units, lockWaitMs: 1000 })),
  );
  assert.deepEqual(taken.sort(), [false, true], 'one batch of two fits in three units');
  assert.equal(app.get(StockTable).stockOf('9'), 1);
  await app.close();
}

main().then(
  () => console.log('  ok   held-lock.ts'),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
