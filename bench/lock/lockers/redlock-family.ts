import Redis from 'ioredis';
import { HeldLock, Locker } from './types';

/** The part of node-redlock's API both `redlock@5` and `@sesamecare-oss/redlock` share. */
interface RedlockLike {
  acquire(resources: string[], duration: number): Promise<{ release(): Promise<unknown> }>;
  quit(): Promise<void>;
}

export type RedlockConstructor = new (clients: Redis[], settings?: Record<string, number>) => RedlockLike;

export class RedlockFamilyLocker implements Locker {
  private readonly redlock: RedlockLike;

  constructor(Ctor: RedlockConstructor, redis: Redis, settings: Record<string, number>) {
    this.redlock = new Ctor([redis], settings);
  }

  async acquire(key: string, ttlMs: number): Promise<HeldLock> {
    const lock = await this.redlock.acquire([key], ttlMs);
    return { release: async () => void (await lock.release()) };
  }

  async close(): Promise<void> {
    await this.redlock.quit();
  }
}
