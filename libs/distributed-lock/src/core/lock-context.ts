import { AsyncLocalStorage } from 'node:async_hooks';
import type { Lock } from '../lock';
import type { Lease } from './lease';

interface HeldInChain {
  lock: Lock;
  lease: Lease;
}

/**
 * Which locks the current async call chain holds (AsyncLocalStorage). A `using` scope adds its
 * lock for the code it runs; chains started elsewhere never see it, so they cannot re-enter.
 */
export class LockContext {
  private readonly storage = new AsyncLocalStorage<readonly HeldInChain[]>();

  /** The innermost lease still held by this chain under the given (display) key. */
  leaseFor(key: string): Lease | undefined {
    return this.innermost(this.storage.getStore() ?? [], (held) => held.lease.key === key)?.lease;
  }

  current(key?: string): Lock | undefined {
    return this.innermost(this.storage.getStore() ?? [], (held) => key === undefined || held.lease.key === key || held.lease.keys.includes(key))?.lock;
  }

  runWith<T>(lock: Lock, lease: Lease, fn: () => Promise<T>): Promise<T> {
    return this.storage.run([...(this.storage.getStore() ?? []), { lock, lease }], fn);
  }

  private innermost(chain: readonly HeldInChain[], matches: (held: HeldInChain) => boolean): HeldInChain | undefined {
    for (let i = chain.length - 1; i >= 0; i--) {
      if (chain[i].lease.active && matches(chain[i])) return chain[i];
    }
    return undefined;
  }
}
