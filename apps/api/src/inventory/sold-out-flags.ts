import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { productKeys } from './product-keys';

// A flag outlives no mistake for long: if clearing it ever fails, it lapses on its own.
const FLAG_TTL_S = 30;

/**
 * The Redis flag that lets every instance refuse a sold-out product without a lock or SQL.
 * Set and cleared under the product's lock, so it moves in step with the stock; when Redis is
 * unreachable the flag is simply not consulted and Postgres answers instead.
 */
@Injectable()
export class SoldOutFlags {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly prefix: RedisKeyPrefix,
  ) {}

  async isSoldOut(productId: string): Promise<boolean> {
    try {
      return (await this.redis.exists(productKeys(this.prefix.value, productId).soldOut)) === 1;
    } catch {
      return false;
    }
  }

  async mark(productId: string): Promise<void> {
    await this.redis.set(productKeys(this.prefix.value, productId).soldOut, '1', 'EX', FLAG_TTL_S).catch(() => undefined);
  }

  async clear(productId: string): Promise<void> {
    await this.redis.del(productKeys(this.prefix.value, productId).soldOut).catch(() => undefined);
  }

  /** Brings the flag in line with a stock figure just read or written under the lock. */
  async sync(productId: string, stock: number): Promise<void> {
    await (stock === 0 ? this.mark(productId) : this.clear(productId));
  }
}
