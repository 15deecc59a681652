// README:begin
import { Redis } from 'ioredis';
import { DistributedLock } from '@flash-sale/distributed-lock';
// README:end
import { strict as assert } from 'node:assert';
import { StockTable } from './stock-table.js';

const stock = new StockTable({ '42': 10 });

async function main(): Promise<void> {
  // README:begin
  const redis = new Redis(process.env.REDIS_URL!);
  const locks = new DistributedLock(redis, { defaultTtlMs: 5000, defaultWaitMs: 3000 });

  await locks.using('stock:42', {}, async (signal, lock) => {
    if (signal.aborted) return; // the lease was lost: stop early
    await stock.take('42', 1, lock.fence); // the write carries the fence: see "The fence"
  }); // renewed while it runs, released afterwards

  const lock = await locks.acquire('stock:42'); // waits up to defaultWaitMs, else LockTimeoutError
  await lock.release(); // true if it was still ours
  const maybe = await locks.tryAcquire('stock:42'); // one attempt: a Lock, or null when held elsewhere
  // README:end
  assert.equal(stock.stockOf('42'), 9, 'using() ran the write once');
  assert.ok(maybe !== null && maybe.fence > lock.fence, 'every new holder gets a larger fence');
  await maybe.release();
  await locks.close(); // on shutdown: releases what it holds; the client is yours to close
  redis.disconnect();
}

main().then(
  () => console.log('  ok   core.ts'),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
