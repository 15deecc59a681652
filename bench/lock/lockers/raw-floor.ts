import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { HeldLock, Locker } from './types';

// KEYS[1] lock key; ARGV[1] owner token. Deletes only if we still own it.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

type ReleaseCommand = (key: string, token: string) => Promise<number>;

/**
 * The floor: one SET NX PX to take, one compare-and-delete script to give back, and a tight
 * retry loop (next SET the moment the previous answer arrives) when the key is held.
 */
export class RawFloorLocker implements Locker {
  private readonly releaseScript: ReleaseCommand;

  constructor(private readonly redis: Redis) {
    redis.defineCommand('benchRawRelease', { numberOfKeys: 1, lua: RELEASE });
    this.releaseScript = (redis as unknown as { benchRawRelease: ReleaseCommand }).benchRawRelease.bind(redis);
  }

  async acquire(key: string, ttlMs: number): Promise<HeldLock> {
    const token = randomUUID();
    while ((await this.redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') {
      // retry immediately: this is the lower bound on latency, not a polite citizen
    }
    return { release: async () => void (await this.releaseScript(key, token)) };
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
