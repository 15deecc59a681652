import { Inject, Injectable } from '@nestjs/common';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { productKeys } from './product-keys';
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

@Injectable()
export class ProductCache {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    private readonly prefix: RedisKeyPrefix,
  ) {}

  async read(productId: string): Promise<CachedProduct | undefined> {
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
    const entry = { v: view, f: Date.now() + (view ? FRESH_MS : MISSING_FRESH_MS) };
    await this.redis.set(productKeys(this.prefix.value, productId).view, JSON.stringify(entry), 'EX', KEEP_S).catch(() => undefined);
  }

  async invalidate(productId: string): Promise<void> {
    await this.redis.del(productKeys(this.prefix.value, productId).view).catch(() => undefined);
  }
}
