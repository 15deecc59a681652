import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisHold } from '../common/redis/redis-hold';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { productKeys } from '../stock/stock-keys';

// A flag outlives no mistake for long: if clearing it ever fails, it lapses on its own.
const FLAG_TTL_MS = 30_000;
// A segmented product's flag is written under one segment's lock from a total counted a moment
// earlier, so it can land just after another segment's cancel cleared it. Its short life (plus
// LOCAL_MEMORY_MS below) bounds how long buyers may be refused while units remain to under a
// second; once it lapses, the next purchase reaches Postgres and, if still sold out, sets it again.
const SEGMENTED_FLAG_TTL_MS = 700;
// How long this process trusts what it last saw without asking Redis again: units returned by a
// cancel on another instance may be refused here for at most this long, and a product another
// instance just sold out may be sent on to Postgres, which refuses it there.
const LOCAL_MEMORY_MS = 250;

/**
 * The Redis flag that lets every instance refuse a sold-out product without a lock or SQL.
 * Set and cleared under the product's lock, so it moves in step with the stock; when Redis is
 * unreachable (as the dependency-failure policy says) the flag is not consulted and Postgres answers
 * instead; any other Redis failure is a bug and is thrown.
 */
@Injectable()
export class SoldOutFlags {
  private readonly seenUntil = new Map<string, number>();
  private readonly inStockUntil = new Map<string, number>();
  /**
   * The flag reads in flight: purchases of one product that arrive meanwhile share its answer (as
   * ProductCache.read shares its GET, though not through one helper: a flag read that a clear()
   * detached must not be remembered as sold out, while a detached cache read only leaves its slot).
   */
  private readonly reading = new Map<string, Promise<boolean>>();
  private readonly log = new Logger(SoldOutFlags.name);
  private readonly readSkipped: (error: unknown) => 0;
  private readonly writeSkipped: (error: unknown) => undefined;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    private readonly prefix: RedisKeyPrefix,
    private readonly hold: RedisHold,
  ) {
    this.readSkipped = hold.fallback({ log: this.log, what: 'sold-out flag read' }, 0);
    this.writeSkipped = hold.fallback({ log: this.log, what: 'sold-out flag write' }, undefined);
  }

  /** Without I/O: whether this process saw the product sold out a moment ago. */
  knownSoldOut(productId: string): boolean {
    return (this.seenUntil.get(productId) ?? 0) > Date.now();
  }

  /**
   * Asks Redis when this process's memory has lapsed. Under a sold-out storm every purchase then in
   * flight would ask at once (one EXISTS per connection); they share one read instead.
   */
  isSoldOut(productId: string): Promise<boolean> {
    if (this.knownSoldOut(productId)) return Promise.resolve(true);
    if ((this.inStockUntil.get(productId) ?? 0) > Date.now()) return Promise.resolve(false);
    const pending = this.reading.get(productId);
    if (pending) return pending;
    const read: Promise<boolean> = this.readFlag(productId).then(
      (soldOut) => {
        // A clear() meanwhile returned units: this read no longer speaks for the product.
        if (this.reading.get(productId) !== read) return soldOut;
        this.reading.delete(productId);
        if (soldOut) this.remember(productId);
        return soldOut;
      },
      (error: unknown) => {
        // Not an unreachable Redis (readFlag answers that): a bug, thrown to this read's purchases alone.
        if (this.reading.get(productId) === read) this.reading.delete(productId);
        throw error;
      },
    );
    this.reading.set(productId, read);
    return read;
  }

  async mark(productId: string, segmented = false): Promise<void> {
    this.remember(productId);
    const ttlMs = segmented ? SEGMENTED_FLAG_TTL_MS : FLAG_TTL_MS;
    const key = productKeys(this.prefix.value, productId).soldOut;
    await this.redis.set(key, '1', 'PX', ttlMs).catch(this.writeSkipped);
  }

  async clear(productId: string): Promise<void> {
    this.seenUntil.delete(productId);
    this.reading.delete(productId); // a read sent before the units came back answers no later buyer
    if (this.inStockUntil.size > 10_000) this.inStockUntil.clear();
    this.inStockUntil.set(productId, Date.now() + LOCAL_MEMORY_MS);
    await this.redis.del(productKeys(this.prefix.value, productId).soldOut).catch(this.writeSkipped);
  }

  /** Brings the flag in line with a stock figure just read or written under the lock. */
  async sync(productId: string, stock: number, segmented = false): Promise<void> {
    await (stock === 0 ? this.mark(productId, segmented) : this.clear(productId));
  }

  /** Whether the flag is set; false (Postgres will answer) when Redis is unreachable. */
  private async readFlag(productId: string): Promise<boolean> {
    if (this.hold.recentlyDown()) return false;
    const key = productKeys(this.prefix.value, productId).soldOut;
    return (await this.redis.exists(key).catch(this.readSkipped)) === 1;
  }

  private remember(productId: string): void {
    this.inStockUntil.delete(productId);
    if (this.seenUntil.size > 10_000) this.seenUntil.clear();
    this.seenUntil.set(productId, Date.now() + LOCAL_MEMORY_MS);
  }
}
