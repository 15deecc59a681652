// The framework-free core, as a plain TypeScript consumer uses it (compiled with tsc --strict).
import { Redis } from 'ioredis';
import { DistributedLock, LockTimeoutError, type Lock } from '@flash-sale/distributed-lock';
import { assert, check } from './check.js';

async function main(): Promise<void> {
  const redis = new Redis(Number(process.env.REDIS_PORT), '127.0.0.1', { maxRetriesPerRequest: 1 });
  const locks = new DistributedLock(redis, { defaultTtlMs: 5000 });
  const rivalRedis = redis.duplicate();
  const rival = new DistributedLock(rivalRedis);
  try {
    let first: Lock | undefined;
    await check('acquire, fence, release', async () => {
      first = await locks.acquire('stock:1');
      assert.equal(typeof first.fence, 'number');
      assert.equal(await redis.get('lock:{stock:1}'), first.token);
      assert.equal(await first.release(), true);
      const second = await locks.acquire('stock:1');
      assert.ok(second.fence > first.fence, 'fences increase with every holder');
      await second.release();
    });
    await check('tryAcquire answers null while the lock is held elsewhere', async () => {
      const held = await locks.acquire('stock:2');
      assert.equal(await rival.tryAcquire('stock:2'), null);
      await held.release();
    });
    await check('acquire throws LockTimeoutError after waitMs', async () => {
      const held = await locks.acquire('stock:3');
      const error = await rival.acquire('stock:3', { waitMs: 100 }).catch((e: unknown) => e);
      assert.ok(error instanceof LockTimeoutError, `expected LockTimeoutError, got ${String(error)}`);
      assert.equal(error.key, 'stock:3');
      await held.release();
    });
  } finally {
    await Promise.all([locks.close(), rival.close()]);
    redis.disconnect();
    rivalRedis.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
