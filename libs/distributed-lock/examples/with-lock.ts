import 'reflect-metadata';
import { strict as assert } from 'node:assert';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import { DistributedLockModule } from '@flash-sale/distributed-lock';
import { Reservations } from './reservations.js';
import { StockTable } from './stock-table.js';

// Runs the README's Reservations (reservations.ts) in an application with a real Redis.
@Module({
  providers: [Reservations, { provide: StockTable, useValue: new StockTable({ '7': 5 }) }],
  exports: [Reservations],
})
export class ReservationsModule {}

@Module({
  imports: [
    DistributedLockModule.forRoot({ redisFactory: () => new Redis(process.env.REDIS_URL!) }),
    ReservationsModule,
  ],
})
class AppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const reservations = app.get(Reservations);
  // Ten reservations of one unit at once, five units in stock: exactly five succeed.
  const results = await Promise.all(
    Array.from({ length: 10 }, () => reservations.reserve({ productId: '7', quantity: 1 })),
  );
  assert.equal(results.filter(Boolean).length, 5);
  assert.equal(app.get(StockTable).stockOf('7'), 0);
  await app.close();
}

main().then(
  () => console.log('  ok   with-lock.ts'),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
