import type { Lock } from './lock';
import type { AcquireOptions } from './lock-options';

/** One key, or several taken together as one multi-key lock. */
export type LockKey = string | string[];

/**
 * What the Nest layer needs from the lock core. `DistributedLock` provides it, and so does
 * `InMemoryDistributedLock` for unit tests.
 */
export interface LockEngine {
  acquire(key: LockKey, opts?: AcquireOptions): Promise<Lock>;
  tryAcquire(key: LockKey, opts?: AcquireOptions): Promise<Lock | null>;
  using<T>(key: LockKey, opts: AcquireOptions, fn: (signal: AbortSignal, lock: Lock) => Promise<T>): Promise<T>;
  current(key?: string): Lock | undefined;
  advanceFence(key: string, fence: number): Promise<void>;
  close(): Promise<void>;
  on(event: string, listener: (payload: any) => void): unknown;
  off(event: string, listener: (payload: any) => void): unknown;
}
