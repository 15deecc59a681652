import Redis from 'ioredis';
import { HeldLock, Locker } from './types';

/** The documented public API (shared/CONTRACT.md), typed here so the bench compiles before the library lands. */
interface OurLock {
  release(): Promise<unknown>;
}
interface OurDistributedLock {
  acquire(key: string, options: { ttlMs: number; waitMs: number }): Promise<OurLock>;
  close(): Promise<void>;
}
type OurConstructor = new (redis: Redis, options?: Record<string, number>) => OurDistributedLock;

/** Our library if `@app/distributed-lock` exports `DistributedLock` yet, else undefined. */
export function loadOurs(): OurConstructor | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('@app/distributed-lock') as { DistributedLock?: OurConstructor };
    return typeof mod.DistributedLock === 'function' ? mod.DistributedLock : undefined;
  } catch {
    return undefined;
  }
}

export class OursLocker implements Locker {
  private readonly locks: OurDistributedLock;

  constructor(
    Ctor: OurConstructor,
    private readonly redis: Redis,
    settings: Record<string, number>,
    private readonly waitMs = 10_000,
  ) {
    this.locks = new Ctor(redis, settings);
  }

  async acquire(key: string, ttlMs: number): Promise<HeldLock> {
    const lock = await this.locks.acquire(key, { ttlMs, waitMs: this.waitMs });
    return { release: async () => void (await lock.release()) };
  }

  async close(): Promise<void> {
    await this.locks.close();
    await this.redis.quit().catch(() => undefined);
  }
}
