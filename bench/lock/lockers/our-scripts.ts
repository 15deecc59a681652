import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { LockNaming } from '@app/distributed-lock/core/lock-names';
import { acquireScript } from '@app/distributed-lock/core/scripts/acquire';
import { releaseScript } from '@app/distributed-lock/core/scripts/release';
import { HeldLock, Locker } from './types';

/**
 * Our library's two scripts of an uncontended cycle (acquire, release) on the keys and arguments
 * it sends, run directly: the Redis and driver side of its cycle without the library's own code.
 * Shown by `profile-uncontended.ts` (kind `scripts`) beside `ours` and the fenced floor, it splits
 * what a cycle costs beyond the floor into the scripts' share and the library's.
 */
export class OurScriptsLocker implements Locker {
  private readonly naming = new LockNaming('lock:', true);

  constructor(private readonly redis: Redis) {}

  async acquire(key: string, ttlMs: number): Promise<HeldLock> {
    const token = randomUUID();
    const keys = this.naming.namesOf(key).scriptKeys;
    const reply = await acquireScript.run(this.redis, keys, [token, ttlMs, 10_000]);
    if (typeof reply === 'number' && reply < 0) throw new Error(`${key} is held: the scripts contender runs uncontended only`);
    return { release: async () => void (await releaseScript.run(this.redis, keys, [token])) };
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
