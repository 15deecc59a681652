import Redis, { Cluster } from 'ioredis';
import type { RedisConnection } from '../redis/redis-client.factory';

/** Adds one hit to a counter key and makes sure the key expires; resolves to the new count. */
export interface RateCounter {
  hit(key: string, ttlMs: number): Promise<number>;
}

/** Per key: INCR, then PEXPIRE on the first hit. Works on any topology, a Cluster included. */
export class PerKeyCounter implements RateCounter {
  constructor(private readonly redis: Pick<Redis, 'incr' | 'pexpire'>) {}

  async hit(key: string, ttlMs: number): Promise<number> {
    const count = await this.redis.incr(key);
    // A key whose PEXPIRE is lost is one stale counter that nobody reads again.
    if (count === 1) void this.redis.pexpire(key, ttlMs).catch(() => undefined);
    return count;
  }
}

const MAX_KEYS_PER_CALL = 256;
const HITS_SCRIPT = `
local counts = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  counts[i] = count
end
return counts`;

type Pending = { key: string; resolve: (count: number) => void; reject: (error: unknown) => void };

/**
 * Hits gathered over one turn of the event loop (setImmediate: every request read in the same
 * poll phase) and counted by one script call (EVALSHA, ioredis re-sends the text on NOSCRIPT).
 * Under a sale that is one command and one write for tens of purchases, where a command per
 * purchase cost the API an object, a timer and a socket write each, and Redis a read each.
 * A script may only touch keys of one slot on a Cluster, so it is for one server (or Sentinel).
 */
export class BatchedScriptCounter implements RateCounter {
  private pending: Pending[] = [];
  private readonly redis: Redis & { rateHits(...args: Array<string | number>): Promise<number[]> };

  constructor(redis: Redis) {
    redis.defineCommand('rateHits', { lua: HITS_SCRIPT });
    this.redis = redis as Redis & { rateHits(...args: Array<string | number>): Promise<number[]> };
  }

  hit(key: string, ttlMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush(ttlMs));
      this.pending.push({ key, resolve, reject });
    });
  }

  private flush(ttlMs: number): void {
    const all = this.pending;
    this.pending = [];
    for (let start = 0; start < all.length; start += MAX_KEYS_PER_CALL) {
      const batch = all.slice(start, start + MAX_KEYS_PER_CALL);
      this.redis.rateHits(batch.length, ...batch.map((p) => p.key), ttlMs).then(
        (counts) => batch.forEach((p, i) => p.resolve(Number(counts[i]))),
        (error: unknown) => batch.forEach((p) => p.reject(error)),
      );
    }
  }
}

/** The counter a connection supports: batched scripts on one server, per-key commands on a Cluster. */
export const counterFor = (connection: RedisConnection): RateCounter =>
  connection instanceof Cluster ? new PerKeyCounter(connection) : new BatchedScriptCounter(connection);
