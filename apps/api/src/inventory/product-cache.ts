import { Inject, Injectable } from '@nestjs/common';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { productKeys } from '../stock/stock-keys';
import { ProductView } from './product.view';

/** A cached read: `view` null means "no such product" (cached briefly so lookups of junk ids stay cheap). */
export interface CachedProduct {
  view: ProductView | null;
  fresh: boolean;
}

const FRESH_MS = 30_000;
const MISSING_FRESH_MS = 3_000;
// Kept past freshness so that readers can be served the stale value while one rebuilds.
const KEEP_S = 120;

/**
 * The product view cached in Redis. Readers of one product that arrive while its GET is in flight
 * share that GET: under a sale the storefront reads the hot product thousands of times a second,
 * and a Redis round trip per read was a third of a read's CPU. A joiner gets a value read at most
 * one round trip before it arrived, of a cache that is already allowed to be 30 s stale; a write or
 * an invalidation detaches the read in flight, so that nobody arriving after it joins an older GET
 * (this connection sends commands in order: a GET issued later runs after the DEL).
 */
@Injectable()
export class ProductCache {
  private readonly inFlight = new Map<string, Promise<CachedProduct | undefined>>();

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    private readonly prefix: RedisKeyPrefix,
  ) {}

  read(productId: string): Promise<CachedProduct | undefined> {
    const pending = this.inFlight.get(productId);
    if (pending) return pending;
    const read = this.readOnce(productId).finally(() => {
      if (this.inFlight.get(productId) === read) this.inFlight.delete(productId);
    });
    this.inFlight.set(productId, read);
    return read;
  }

  private async readOnce(productId: string): Promise<CachedProduct | undefined> {
    try {
      const raw = await this.redis.get(productKeys(this.prefix.value, productId).view);
      if (!raw) return undefined;
      const entry = JSON.parse(raw) as { v: ProductView | null; f: number };
      return { view: entry.v, fresh: entry.f > Date.now() };
    } catch {
      return undefined;
    }
  }

  async write(productId: string, view: ProductView | null): Promise<void> {
    this.inFlight.delete(productId);
    const entry = { v: view, f: Date.now() + (view ? FRESH_MS : MISSING_FRESH_MS) };
    await this.redis.set(productKeys(this.prefix.value, productId).view, JSON.stringify(entry), 'EX', KEEP_S).catch(() => undefined);
  }

  async invalidate(productId: string): Promise<void> {
    this.inFlight.delete(productId);
    await this.redis.del(productKeys(this.prefix.value, productId).view).catch(() => undefined);
  }
}
