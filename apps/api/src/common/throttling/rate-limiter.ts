import Redis, { Cluster } from 'ioredis';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException } from '../errors/app.exception';
import { ErrorCode } from '../errors/error-code';
import { reportBackgroundFailure } from '../../metrics/background-failures';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../../config/app-config.module';
import type { RedisConnection } from '../redis/redis-client.factory';
import { REDIS_CLIENT } from '../redis/redis.constants';
import { RedisHold, SkipContext } from '../redis/redis-hold';
import { RedisKeyPrefix } from '../redis/redis-keys';
import { clientAddressKey } from './client-address-key';
import { LocalRateCounts } from './local-rate-counts';

/**
 * The clock every rate window of the app is read from (epoch milliseconds): the shared and
 * per-instance budgets, the early-retry refusals, the token failure budget. One provider, asked on
 * each hit rather than copied at construction, so every window the app counts in moves together
 * (a test pins them all through it: test/support/rate-clock.ts).
 */
@Injectable()
export class RateClock {
  now(): number {
    return Date.now();
  }
}

/** Where `nowMs` falls in fixed windows of `windowMs` aligned on the epoch. */
export function windowAt(nowMs: number, windowMs: number): { index: number; msLeft: number } {
  const index = Math.floor(nowMs / windowMs);
  return { index, msLeft: (index + 1) * windowMs - nowMs };
}

/** Retry-After for a refusal: the whole seconds until the window ends, at least 1. */
export const retryAfterSeconds = (msLeft: number): number => Math.max(1, Math.ceil(msLeft / 1000));

export const RATE_LIMIT_WINDOW_MS = 1000;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterS: number };

/**
 * A per-caller limit shared by every instance: a counter per caller and one-second window in
 * Redis (`<prefix>rate:{<tracker>}:<window>`), windows aligned on the clock so instances count
 * into the same key, each key expiring a window after its own (the counters below do the Redis
 * side: one batched script call per event-loop turn on one server, INCR/PEXPIRE on a Cluster).
 */
export class WindowRateLimiter {
  /** The same limit counted in this process alone, for while Redis cannot count (hitHere). */
  private readonly local = new LocalRateCounts();

  constructor(
    private readonly counter: RateCounter,
    private readonly keyPrefix: string,
    private readonly limit: number,
    /** Whether Redis was found unreachable a moment ago: RateBudget then counts here alone. */
    readonly hold: RedisHold,
    /** The windows' clock (RateClock's in the app). */
    private readonly now: () => number,
  ) {}

  /** The same counting (counter, keys, hold, clock) under another limit, with counts of its own here. */
  withLimit(limit: number): WindowRateLimiter {
    return new WindowRateLimiter(this.counter, this.keyPrefix, limit, this.hold, this.now);
  }

  async hit(tracker: string): Promise<RateDecision> {
    const { index, msLeft } = windowAt(this.now(), RATE_LIMIT_WINDOW_MS);
    const key = `${this.keyPrefix}rate:{${tracker}}:${index}`;
    const count = await this.counter.hit(key, 2 * RATE_LIMIT_WINDOW_MS);
    return count <= this.limit ? { allowed: true } : { allowed: false, retryAfterS: retryAfterSeconds(msLeft) };
  }

  /**
   * One hit counted by this instance alone, in the same windows as `hit`: the limit per instance,
   * for while Redis is unreachable or slow (RateBudget). Approximate: each instance lets the whole
   * limit through, and a window's count starts from nothing whatever Redis counted before.
   */
  hitHere(tracker: string): RateDecision {
    const { index, msLeft } = windowAt(this.now(), RATE_LIMIT_WINDOW_MS);
    const count = this.local.hit(tracker, index);
    return count <= this.limit ? { allowed: true } : { allowed: false, retryAfterS: retryAfterSeconds(msLeft) };
  }
}

/** Adds one hit to a counter key and makes sure the key expires; resolves to the new count. */
export interface RateCounter {
  hit(key: string, ttlMs: number): Promise<number>;
}

/** Per key: INCR, then PEXPIRE on the first hit. Works on any topology, a Cluster included. */
export class PerKeyCounter implements RateCounter {
  private readonly log = new Logger('RateLimiter');
  private readonly expirySkip: SkipContext = { log: this.log, what: 'rate counter expiry' };

  constructor(
    private readonly redis: Pick<Redis, 'incr' | 'pexpire'>,
    private readonly hold: RedisHold,
  ) {}

  async hit(key: string, ttlMs: number): Promise<number> {
    const count = await this.redis.incr(key);
    // Not awaited: a key whose PEXPIRE Redis could not take is one stale counter nobody reads again
    // (skipped per the dependency-failure policy); any other failure is a bug, reported.
    if (count === 1) void this.redis.pexpire(key, ttlMs).catch((error: unknown) => this.expiryFailed(error));
    return count;
  }

  private expiryFailed(error: unknown): void {
    try {
      this.hold.skip(error, this.expirySkip);
    } catch (bug) {
      reportBackgroundFailure(this.log, 'rate-counter-expiry', 'PEXPIRE', bug);
    }
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
export const counterFor = (connection: RedisConnection, hold: RedisHold): RateCounter =>
  connection instanceof Cluster ? new PerKeyCounter(connection, hold) : new BatchedScriptCounter(connection);

/** The app's limiter, on the app's Redis connection. */
@Injectable()
export class UserRateLimiter extends WindowRateLimiter {
  constructor(
    @Inject(REDIS_CLIENT) redis: RedisConnection,
    prefix: RedisKeyPrefix,
    @Inject(ConfigService) config: TypedConfigService,
    hold: RedisHold,
    clock: RateClock,
  ) {
    const limit = config.get('http', { infer: true }).rateLimitPerSecond;
    super(counterFor(redis, hold), prefix.value, limit, hold, () => clock.now());
  }
}

/**
 * The counter of a budget kept per client address (the address Fastify derives), shared by every
 * per-address budget so their keys read alike; an IPv6 client is counted by its IPV6_CLIENT_PREFIX
 * prefix (client-address-key.ts), so rotating within its own /64 buys it nothing.
 */
export function addressTracker(budget: string, address: string | undefined, ipv6Prefix: number): string {
  return `${budget}:ip:${clientAddressKey(address, ipv6Prefix)}`;
}

/**
 * A rate budget of the API: `spend` counts one request against a tracker and throws 429
 * RATE_LIMITED (with Retry-After) past the budget. While Redis is unreachable or slow (a failed
 * call, or one within the limiter's RedisHold) the shared count is skipped
 * (RedisHold.skip) and the same limit is counted by this instance alone (hitHere): a sick
 * Redis makes the budget per instance, never none, so strangers still cannot buy Postgres work
 * with it. Nothing of the fallback runs while Redis answers.
 */
export class RateBudget {
  private readonly skip: SkipContext;

  constructor(
    private readonly limiter: WindowRateLimiter,
    log: Logger,
    /** What the budget is for, in the 429's message and the skip warning. */
    private readonly what: string,
  ) {
    this.skip = { log, what: `${what} shared rate limit (counted per instance meanwhile)` };
  }

  async spend(tracker: string): Promise<void> {
    let decision: RateDecision;
    if (this.limiter.hold.recentlyDown()) decision = this.limiter.hitHere(tracker);
    else
      try {
        decision = await this.limiter.hit(tracker);
      } catch (error) {
        this.limiter.hold.skip(error, this.skip);
        decision = this.limiter.hitHere(tracker);
      }
    if (!decision.allowed)
      throw new AppException(ErrorCode.RateLimited, `too many ${this.what}, slow down`, decision.retryAfterS);
  }
}

/** 429 RATE_LIMITED for a purchase retried before the Retry-After it was given; nothing was done. */
export class EarlyRetryException extends AppException {
  constructor(retryAfterS: number) {
    super(
      ErrorCode.RateLimited,
      'retried before its Retry-After, nothing was done; retry after Retry-After',
      retryAfterS,
    );
  }
}

// Entries kept at most; past this, lapsed ones are dropped, then all (memory stays bounded).
const MAX_NOT_BEFORE = 100_000;
// A client that waits exactly Retry-After may still arrive a hair early by this instance's clock.
const EARLY_SLACK_MS = 20;
// A client's requests already on their way when a refusal was sent (a burst of concurrent
// purchases) arrive within this of it: refused, but they do not move the moment. Below the
// shortest Retry-After (1 s), so a client that keeps retrying early never reaches its moment.
const IN_FLIGHT_MS = 500;

/** When a user may next buy a product here, since when, and the wait that a refusal restarts. */
interface NotBefore {
  at: number;
  armedAt: number;
  waitMs: number;
}

/**
 * When a user may next try to buy a product on this instance: a purchase answered 429 or 503 with
 * Retry-After is noted (per user and product) until the moment that Retry-After named, and a retry
 * before it is refused here (EarlyRetryException, the seconds left as its Retry-After) with no
 * Redis and no SQL, so it can win nothing. A retry that comes early when it cannot have been in
 * flight already (over IN_FLIGHT_MS after the moment was set) starts the wait again from its own
 * arrival: a client that retries without waiting is refused for as long as it does, and only one
 * that waits out a Retry-After buys again. In process memory: a map lookup per purchase (none
 * while nothing is noted), bounded in size. Read on the rate windows' clock (RateClock's in the app).
 */
export class RetryNotBefore {
  private readonly until = new Map<string, NotBefore>();

  constructor(private readonly clock: () => number) {}

  /** The refusal of a purchase sent too early, or undefined. */
  refusal(userId: string, productId: string): EarlyRetryException | undefined {
    if (this.until.size === 0) return undefined;
    const now = this.clock();
    const key = `${userId} ${productId}`;
    const entry = this.until.get(key);
    if (entry === undefined) return undefined;
    if (now >= entry.at - EARLY_SLACK_MS) {
      this.until.delete(key);
      return undefined;
    }
    if (now - entry.armedAt > IN_FLIGHT_MS) {
      entry.at = Math.max(entry.at, now + entry.waitMs);
      entry.armedAt = now;
    }
    return new EarlyRetryException(retryAfterSeconds(entry.at - now));
  }

  /** Notes a refusal's Retry-After: no purchase of this product by this user before then. */
  note(userId: string, productId: string, retryAfterS: number): void {
    const now = this.clock();
    if (this.until.size >= MAX_NOT_BEFORE) this.dropLapsed(now);
    const key = `${userId} ${productId}`;
    const waitMs = retryAfterS * 1000;
    const known = this.until.get(key);
    // Answers of concurrent attempts may come in any order: the furthest moment stands.
    if (known && known.at >= now + waitMs) return;
    this.until.set(key, { at: now + waitMs, armedAt: now, waitMs });
  }

  private dropLapsed(now: number): void {
    for (const [key, { at }] of this.until) if (at <= now) this.until.delete(key);
    if (this.until.size >= MAX_NOT_BEFORE) this.until.clear();
  }
}
