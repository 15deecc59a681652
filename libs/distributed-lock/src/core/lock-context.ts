import { AsyncLocalStorage } from 'node:async_hooks';
import type { Lease, LockHandle } from './lease';

/**
 * Which locks the current async call chain holds (AsyncLocalStorage). A `using` scope adds its
 * lock for the code it runs; chains started elsewhere never see it, so they cannot re-enter.
 */
export class LockContext {
  private readonly storage = new AsyncLocalStorage<readonly LockHandle[]>();

  /** The innermost lease still held by this chain under the given (display) key. */
  leaseFor(key: string): Lease | undefined {
    return this.innermost((lease) => lease.key === key)?.lease;
  }

  current(key?: string): LockHandle | undefined {
    return this.innermost((lease) => key === undefined || lease.key === key || lease.keys.includes(key));
  }

  runWith<T>(lock: LockHandle, fn: () => Promise<T>): Promise<T> {
    return this.storage.run([...(this.storage.getStore() ?? []), lock], fn);
  }

  private innermost(matches: (lease: Lease) => boolean): LockHandle | undefined {
    const chain = this.storage.getStore() ?? [];
    for (let i = chain.length - 1; i >= 0; i--) {
      if (chain[i].lease.active && matches(chain[i].lease)) return chain[i];
    }
    return undefined;
  }
}
