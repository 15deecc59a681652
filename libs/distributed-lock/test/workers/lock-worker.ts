// A separate process using the lock library, driven by the specs through argv:
//   exclusion <port> <key> <rounds>   take the lock <rounds> times, counting overlaps in Redis
//   hold <port> <key> <ttlMs>         take the lock, print its token, then hang (to be killed)
//   take <port> <key> <waitMs> <holdMs>  wait for the lock, print token and fence, hold, release
//   crowd <port> <key> <chains> <rounds>  <chains> concurrent chains each take the lock <rounds>
//                                         times, counting overlaps and appending fences in Redis
import Redis from 'ioredis';
import { DistributedLock } from '../../src/distributed-lock';

const [mode, port, key, a, b] = process.argv.slice(2);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const redis = new Redis(Number(port), '127.0.0.1', { maxRetriesPerRequest: 1 });
  const locks = new DistributedLock(redis, { defaultTtlMs: 5000 });
  if (mode === 'exclusion') {
    for (let i = 0; i < Number(a); i++) {
      await locks.using(key, { waitMs: 30_000 }, async () => {
        if ((await redis.incr('inside')) > 1) await redis.incr('overlaps');
        await sleep(1);
        await redis.decr('inside');
        await redis.incr('sections');
      });
    }
  } else if (mode === 'crowd') {
    const chain = async (): Promise<void> => {
      for (let i = 0; i < Number(b); i++) {
        await locks.using(key, { waitMs: 60_000 }, async (_signal, lock) => {
          if ((await redis.incr('inside')) > 1) await redis.incr('overlaps');
          await redis.rpush('fences', lock.fence);
          await sleep(1);
          await redis.decr('inside');
        });
      }
    };
    await Promise.all(Array.from({ length: Number(a) }, chain));
  } else if (mode === 'hold') {
    const lock = await locks.acquire(key, { ttlMs: Number(a) });
    process.stdout.write(`held ${lock.token}\n`);
    await new Promise(() => undefined);
  } else if (mode === 'take') {
    const lock = await locks.acquire(key, { waitMs: Number(a), ttlMs: 5000 });
    process.stdout.write(`acquired ${lock.token} ${lock.fence}\n`);
    await sleep(Number(b));
    await lock.release();
  }
  await locks.close();
  redis.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
