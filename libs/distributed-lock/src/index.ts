export { DistributedLock } from './distributed-lock';
export type { Lock, LockEventMap } from './lock';
export type { AcquireOptions, DistributedLockOptions } from './lock-options';
export { LockError, LockLostError, LockTimeoutError, LockUnavailableError } from './errors';
