/** One contender as the harness sees it: a black box that can take and give back a lock. */
export interface HeldLock {
  release(): Promise<void>;
}

export interface Locker {
  acquire(key: string, ttlMs: number): Promise<HeldLock>;
  close(): Promise<void>;
}

/** `rawFenced` runs in scenario (a) only. */
export type ContenderKind = 'raw' | 'rawFenced' | 'ours' | 'redlock' | 'sesame' | 'semaphore';

/** Serialisable, so child processes can build the same contender from it. */
export interface ContenderSpec {
  kind: ContenderKind;
  label: string;
  /** Settings passed to the library; empty means its defaults. */
  settings: Record<string, number>;
}
