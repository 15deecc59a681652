import 'reflect-metadata';
import { strict as assert } from 'node:assert';
// README:begin
import { Test } from '@nestjs/testing';
import { CurrentLock, DistributedLockService } from '@flash-sale/distributed-lock';
import { FakeDistributedLockService } from '@flash-sale/distributed-lock/testing';
// README:end
import { StockTable } from './stock-table.js';
import { Reservations } from './reservations.js';

async function main(): Promise<void> {
  // README:begin
  const moduleRef = await Test.createTestingModule({
    providers: [
      Reservations,
      CurrentLock,
      { provide: StockTable, useValue: new StockTable({ '42': 1 }) },
      { provide: DistributedLockService, useClass: FakeDistributedLockService },
    ],
  }).compile();

  const fake = moduleRef.get(DistributedLockService) as FakeDistributedLockService;
  assert.equal(await moduleRef.get(Reservations).reserve({ productId: '42', quantity: 1 }), true);
  assert.equal(fake.memory.isHeld('stock:42'), false); // released after the call
  // README:end
  await moduleRef.close();
}

main().then(
  () => console.log('  ok   testing.ts'),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
