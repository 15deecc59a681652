import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { HeldLock, Locker } from './types';

// KEYS[1] lock key, KEYS[2] the fence counter (one for all keys); ARGV[1] owner token, ARGV[2] ttl ms.
// Takes the lock and hands out the next fence in one step; 0 when the lock is held.
const ACQUIRE_FENCED = `if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('incr', KEYS[2]) end return 0`;
// KEYS[1] lock key; ARGV[1] owner token. Deletes only if we still own it.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

// One counter for every key, as our library keeps it: a fresh key costs no counter of its own.
const FENCE_COUNTER = 'bench:fenced-floor#fence';

type AcquireCommand = (key: string, fenceKey: string, token: string, ttlMs: number) => Promise<number>;
type ReleaseCommand = (key: string, token: string) => Promise<number>;

/**
 * The floor for a lock that hands out a fencing token in the same atomic step as the acquire
 * (issue 3's requirement 2): one script that does `SET NX PX` + `INCR`, and the same
 * compare-and-delete as the raw floor. Shown in scenario (a) only, as the cost of the fence
 * alone, without anything else a library does.
 */
export class RawFencedFloorLocker implements Locker {
  private readonly acquireScript: AcquireCommand;
  private readonly releaseScript: ReleaseCommand;

  constructor(private readonly redis: Redis) {
    redis.defineCommand('benchFencedAcquire', { numberOfKeys: 2, lua: ACQUIRE_FENCED });
    redis.defineCommand('benchFencedRelease', { numberOfKeys: 1, lua: RELEASE });
    const commands = redis as unknown as { benchFencedAcquire: AcquireCommand; benchFencedRelease: ReleaseCommand };
    this.acquireScript = commands.benchFencedAcquire.bind(redis);
    this.releaseScript = commands.benchFencedRelease.bind(redis);
  }

  async acquire(key: string, ttlMs: number): Promise<HeldLock> {
    const token = randomUUID();
    while ((await this.acquireScript(key, FENCE_COUNTER, token, ttlMs)) === 0) {
      // retry immediately, as the raw floor does
    }
    return { release: async () => void (await this.releaseScript(key, token)) };
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
