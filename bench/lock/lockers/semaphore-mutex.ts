import Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
import { HeldLock, Locker } from './types';

/** redis-semaphore's Mutex; one instance per acquisition, since an instance is one holder. */
export class SemaphoreMutexLocker implements Locker {
  constructor(
    private readonly redis: Redis,
    private readonly settings: Record<string, number>,
  ) {}

  async acquire(key: string, ttlMs: number): Promise<HeldLock> {
    const mutex = new Mutex(this.redis, key, { lockTimeout: ttlMs, ...this.settings });
    await mutex.acquire();
    return { release: () => mutex.release() };
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
