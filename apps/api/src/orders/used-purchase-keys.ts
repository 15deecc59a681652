import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { isRedisUnavailable } from '../common/errors/dependency-errors';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisHold } from '../common/redis/redis-hold';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { reportBackgroundFailure } from '../metrics/background-failures';

// How long a refused retry of a key is still recognised as a replay. A retry the sale still takes
// reaches Postgres, which finds its key whatever its age (the answer is the same either way).
export const USED_KEY_TTL_MS = 24 * 3600_000;
// Markers Redis could not take, kept here until it can; past this many the oldest are dropped.
const MAX_UNWRITTEN = 10_000;
const RETRY_EVERY_MS = 1000;

/**
 * The Idempotency-Keys each user has sent to be bought: one Redis key per (user, key), written
 * before the purchase is queued (so before it can commit). A refusal of a keyed retry (sale terms,
 * sold out) asks here, with one Redis read, whether an order may exist for it; only then are the
 * orders searched, so a stream of refused retries with fresh keys costs Postgres nothing.
 *
 * Errs towards the orders while Redis is unreachable (the dependency-failure policy): a read
 * answers "may have", and a marker Redis could not take is kept in this process and written when
 * Redis answers again (counted as present here meanwhile). Any other Redis failure is a bug, thrown. Only an instance that dies holding such markers, or one that drops past
 * MAX_UNWRITTEN, loses some: a refused retry of those keys then gets the refusal, not its order.
 */
@Injectable()
export class UsedPurchaseKeys implements OnApplicationShutdown {
  private readonly log = new Logger(UsedPurchaseKeys.name);
  private readonly unwritten = new Set<string>();
  private retry: NodeJS.Timeout | undefined;
  private readonly writeSkip = { log: this.log, what: 'Idempotency-Key marker write (kept here to write later)' };
  private readonly readSkip = { log: this.log, what: 'Idempotency-Key marker read (the orders answer)' };

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    private readonly prefix: RedisKeyPrefix,
    private readonly hold: RedisHold,
  ) {}

  /** Marks the key as sent by this user; resolves once Redis holds the mark or this process keeps it. */
  async record(userId: string, key: string): Promise<void> {
    const marker = this.markerOf(userId, key);
    if (this.hold.recentlyDown()) return this.keep(marker);
    try {
      await this.redis.set(marker, '1', 'PX', USED_KEY_TTL_MS);
    } catch (error) {
      this.hold.skip(error, this.writeSkip);
      this.keep(marker);
    }
  }

  /** Whether this user may have an order under this key: false only when it was never recorded. */
  async mayHaveUsed(userId: string, key: string): Promise<boolean> {
    const marker = this.markerOf(userId, key);
    if (this.unwritten.has(marker) || this.hold.recentlyDown()) return true;
    try {
      return (await this.redis.exists(marker)) === 1;
    } catch (error) {
      this.hold.skip(error, this.readSkip);
      return true; // unknown: the orders answer
    }
  }

  onApplicationShutdown(): void {
    clearTimeout(this.retry);
  }

  private markerOf(userId: string, key: string): string {
    return `${this.prefix.value}purchase-key:{${userId}}:${key}`;
  }

  private keep(marker: string): void {
    if (this.unwritten.size >= MAX_UNWRITTEN) this.unwritten.delete(this.unwritten.values().next().value!);
    this.unwritten.add(marker);
    this.retry ??= setTimeout(() => void this.writeKept(), RETRY_EVERY_MS).unref();
  }

  private async writeKept(): Promise<void> {
    this.retry = undefined;
    for (const marker of [...this.unwritten]) {
      try {
        await this.redis.set(marker, '1', 'PX', USED_KEY_TTL_MS);
        this.unwritten.delete(marker);
      } catch (error) {
        if (isRedisUnavailable(error)) break; // still unreachable: try again later
        this.unwritten.delete(marker); // a bug: reported, not retried for ever
        reportBackgroundFailure(this.log, 'purchase-key-marker', marker, error);
      }
    }
    if (this.unwritten.size > 0) this.retry ??= setTimeout(() => void this.writeKept(), RETRY_EVERY_MS).unref();
  }
}
