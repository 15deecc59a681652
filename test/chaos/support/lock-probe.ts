import Redis from 'ioredis';
import { ApiProcess } from '../../../scripts/infra/api-process';
import { sleep } from '../../support/api-client';

/** The Redis key of a product's lease (LockingModule prefix `fs:lock:` + the library's hash tag). */
export const productLockKey = (productId: string): string => `fs:lock:{stock:${productId}}`;

/** The fence counter every lock key of the app shares (the library's `<prefix>#fence`). */
export const FENCE_COUNTER = 'fs:lock:#fence';

export interface HeldProbe {
  held: boolean;
  tries: number;
  /** Lease left when the holder was confirmed, in ms. */
  leaseLeftMs?: number;
}

/**
 * Freezes `api` (SIGSTOP) at moments when it holds the product's lease, and leaves it frozen.
 * A holder serves a batch in milliseconds and renews every ttl/3, so a lease whose token stays
 * the same for `observeMs` with its TTL running down belongs to the frozen process. Otherwise
 * the process is thawed and the probe tried again a moment later.
 */
export async function freezeWhileHolding(api: ApiProcess, redis: Redis, productId: string, maxTries = 60, observeMs = 300): Promise<HeldProbe> {
  const key = productLockKey(productId);
  for (let tries = 1; tries <= maxTries; tries++) {
    api.signal('SIGSTOP');
    await sleep(15);
    const [token1, pttl1] = await Promise.all([redis.get(key), redis.pttl(key)]);
    await sleep(observeMs);
    const [token2, pttl2] = await Promise.all([redis.get(key), redis.pttl(key)]);
    if (token1 && token1 === token2 && pttl2 > 0 && pttl2 < pttl1 - observeMs / 2) return { held: true, tries, leaseLeftMs: pttl2 };
    api.signal('SIGCONT');
    await sleep(50 + Math.random() * 150);
  }
  return { held: false, tries: maxTries };
}
