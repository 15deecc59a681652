import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { register } from 'prom-client';
import { RedisServerProcess } from '../../../../../test/support/redis-server';
import {
  BatchedScriptCounter,
  EarlyRetryException,
  PerKeyCounter,
  RateBudget,
  RateCounter,
  RateDecision,
  retryAfterSeconds,
  RetryNotBefore,
  WindowRateLimiter,
  windowAt,
} from './rate-limiter';
import { RedisHold } from '../redis/redis-hold';

describe('windowAt', () => {
  it('places a time in its epoch-aligned window and says how much of it is left', () => {
    expect(windowAt(12_345, 1000)).toEqual({ index: 12, msLeft: 655 });
    expect(windowAt(13_000, 1000)).toEqual({ index: 13, msLeft: 1000 });
  });

  it('asks a refused caller to wait at least a second, rounding up', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
  });
});

const COUNTERS: Array<[string, string, (redis: Redis) => RateCounter]> = [
  ['one batched script call per loop turn (one server)', 'batched', (redis) => new BatchedScriptCounter(redis)],
  ['INCR and PEXPIRE per hit (Cluster)', 'per-key', (redis) => new PerKeyCounter(redis, new RedisHold())],
];

describe.each(COUNTERS)('WindowRateLimiter on a real Redis, counting with %s', (_name, tag, counterOn) => {
  let server: RedisServerProcess;
  let clients: Redis[];
  let now: number;
  const clock = () => now;

  beforeAll(async () => {
    server = await RedisServerProcess.start();
  });
  beforeEach(() => {
    // Mid-window, so that no assertion depends on when the test happens to run.
    now = 1_700_000_000_250;
    clients = [server.client(), server.client()];
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.quit()));
  });
  afterAll(async () => {
    await server.stop();
  });

  it('holds one limit per caller across instances: hits through two limiters share the count', async () => {
    const [a, b] = clients.map((c) => new WindowRateLimiter(counterOn(c), `spec1-${tag}:`, 3, new RedisHold(), clock));
    const decisions = await Promise.all([
      a.hit('user:u1'),
      b.hit('user:u1'),
      a.hit('user:u1'),
      b.hit('user:u1'),
      a.hit('user:u1'),
    ]);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
    expect(decisions.filter((d) => !d.allowed)).toEqual([
      { allowed: false, retryAfterS: 1 },
      { allowed: false, retryAfterS: 1 },
    ]);
    expect(await a.hit('user:u2')).toEqual({ allowed: true });
  });

  it('starts a fresh count in the next window, and the old counter expires on its own', async () => {
    const limiter = new WindowRateLimiter(counterOn(clients[0]), `spec2-${tag}:`, 1, new RedisHold(), clock);
    expect(await limiter.hit('user:u1')).toEqual({ allowed: true });
    expect((await limiter.hit('user:u1')).allowed).toBe(false);
    const [key] = await clients[0].keys(`spec2-${tag}:rate:*`);
    const ttl = await clients[0].pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
    now += 1000;
    expect(await limiter.hit('user:u1')).toEqual({ allowed: true });
  });

  it('keys every caller in its own hash tag, so a Cluster keeps each counter on one slot', async () => {
    const prefix = `spec3-${tag}:`;
    await new WindowRateLimiter(counterOn(clients[0]), prefix, 1, new RedisHold(), clock).hit('user:u1');
    expect(await clients[0].keys(`${prefix}*`)).toEqual([`${prefix}rate:{user:u1}:${Math.floor(now / 1000)}`]);
  });

  it('counts many callers hit in one turn each in their own key', async () => {
    const limiter = new WindowRateLimiter(counterOn(clients[0]), `spec5-${tag}:`, 1, new RedisHold(), clock);
    const users = Array.from({ length: 300 }, (_, i) => `user:${i}`);
    const first = await Promise.all(users.map((u) => limiter.hit(u)));
    expect(first.every((d) => d.allowed)).toBe(true);
    const second = await Promise.all(users.map((u) => limiter.hit(u)));
    expect(second.every((d) => !d.allowed)).toBe(true);
  });

  it('fails when Redis cannot be reached, for the guard to decide', async () => {
    const offline = new Redis(server.port + 1, '127.0.0.1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    await expect(
      new WindowRateLimiter(counterOn(offline), 'spec4:', 1, new RedisHold(), clock).hit('user:u1'),
    ).rejects.toThrow();
    offline.disconnect();
  });
});

describe('RateBudget', () => {
  const limiterAnswering = (hit: () => Promise<RateDecision>) =>
    ({ hit, hold: new RedisHold() }) as unknown as WindowRateLimiter;
  const log = () => ({ warn: jest.fn() });

  it('refuses past the budget with 429 RATE_LIMITED and the window as Retry-After', async () => {
    const budget = new RateBudget(
      limiterAnswering(async () => ({ allowed: false, retryAfterS: 1 })),
      log() as never,
      'purchases',
    );
    await expect(budget.spend('user:a')).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfterS: 1 });
  });

  it('counts the same limit in this process alone, with one warning, while Redis is unreachable', async () => {
    const warnings = log();
    const unreachable = { hit: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')) };
    const limiter = new WindowRateLimiter(unreachable, 'spec:', 2, new RedisHold(), () => 1_700_000_000_250);
    const budget = new RateBudget(limiter, warnings as never, 'unreachable test');
    // The first finds Redis down; the next ones skip it (the limiter's RedisHold) and count here too.
    await expect(budget.spend('user:a')).resolves.toBeUndefined();
    await expect(budget.spend('user:a')).resolves.toBeUndefined();
    await expect(budget.spend('user:a')).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfterS: 1 });
    await expect(budget.spend('user:b')).resolves.toBeUndefined();
    expect(warnings.warn).toHaveBeenCalledTimes(1);
    expect(warnings.warn.mock.calls[0][0]).toBe(
      'unreachable test shared rate limit (counted per instance meanwhile) skipped: redis unavailable',
    );
  });

  it('counts here too when Redis is slow: a command past its timeout', async () => {
    const slow = { hit: () => Promise.reject(new Error('Command timed out')) };
    const budget = new RateBudget(
      new WindowRateLimiter(slow, 'spec:', 1, new RedisHold(), () => 1_700_000_000_250),
      log() as never,
      'slow',
    );
    await expect(budget.spend('user:a')).resolves.toBeUndefined();
    await expect(budget.spend('user:a')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('passes any other failure on as it is', async () => {
    const bug = new Error('ERR syntax error in script');
    const budget = new RateBudget(
      limiterAnswering(() => Promise.reject(bug)),
      log() as never,
      'purchases',
    );
    await expect(budget.spend('user:a')).rejects.toBe(bug);
  });
});

describe('WindowRateLimiter.hitHere (the count of this process alone)', () => {
  it('holds the same limit per tracker in the same epoch-aligned windows as the shared count', () => {
    let now = 1_700_000_000_250;
    const limiter = new WindowRateLimiter(
      { hit: () => Promise.reject(new Error('unused')) },
      'spec:',
      2,
      new RedisHold(),
      () => now,
    );
    expect([limiter.hitHere('a'), limiter.hitHere('a'), limiter.hitHere('b')]).toEqual([
      { allowed: true },
      { allowed: true },
      { allowed: true },
    ]);
    expect(limiter.hitHere('a')).toEqual({ allowed: false, retryAfterS: 1 });
    now = 1_700_000_001_000;
    expect(limiter.hitHere('a')).toEqual({ allowed: true });
  });
});

describe('PerKeyCounter when the PEXPIRE of a first hit fails', () => {
  const expiryFailures = async (): Promise<number> => {
    const metric = await register.getSingleMetric('background_failures_total')?.get();
    return (metric?.values ?? [])
      .filter((v) => v.labels.task === 'rate-counter-expiry')
      .reduce((sum, v) => sum + v.value, 0);
  };
  const counterFailingWith = (error: Error) =>
    new PerKeyCounter(
      { incr: async () => 1, pexpire: () => Promise.reject(error) } as unknown as Redis,
      new RedisHold(),
    );
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('skips it while Redis is unreachable (a warning, no failure reported)', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const before = await expiryFailures();
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    expect(await counterFailingWith(unreachable).hit('k', 2000)).toBe(1);
    await settle();
    expect(await expiryFailures()).toBe(before);
    warn.mockRestore();
  });

  it('reports any other failure as the bug it is', async () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const before = await expiryFailures();
    expect(await counterFailingWith(new Error('ERR wrong kind')).hit('k', 2000)).toBe(1);
    await settle();
    expect(await expiryFailures()).toBe(before + 1);
    error.mockRestore();
  });
});

/** One RetryNotBefore on a clock the test sets: `at(ms)` moves the clock and hands it back. */
function retriesOnClock(): (ms: number) => RetryNotBefore {
  let nowMs = 0;
  const retries = new RetryNotBefore(() => nowMs);
  return (ms) => {
    nowMs = ms;
    return retries;
  };
}

describe('RetryNotBefore', () => {
  it('refuses a retry of the same user and product before the noted Retry-After, with the seconds left', () => {
    const at = retriesOnClock();
    at(10_000).note('u1', '7', 3);
    const early = at(10_500).refusal('u1', '7');
    expect(early).toBeInstanceOf(EarlyRetryException);
    expect(early).toMatchObject({ code: 'RATE_LIMITED', retryAfterS: 3 });
    // Still in flight when the refusal went out: the moment stays.
    expect(at(10_400).refusal('u1', '7')?.retryAfterS).toBe(3);
    expect(at(12_990).refusal('u1', '7')).toBeUndefined();
    // Another product, another user: not concerned.
    expect(at(10_500).refusal('u1', '8')).toBeUndefined();
    expect(at(10_500).refusal('u2', '7')).toBeUndefined();
  });

  it('lets the retry through from the moment Retry-After named (a client timer a hair early included)', () => {
    const at = retriesOnClock();
    at(10_000).note('u1', '7', 1);
    expect(at(10_990).refusal('u1', '7')).toBeUndefined();
    expect(at(10_991).refusal('u1', '7')).toBeUndefined(); // forgotten once passed
  });

  it('starts the wait again for a retry that comes early and cannot have been in flight', () => {
    const at = retriesOnClock();
    at(10_000).note('u1', '7', 1);
    // 600 ms after the refusal: sent after it, so the full second starts again from here.
    expect(at(10_600).refusal('u1', '7')?.retryAfterS).toBe(1);
    expect(at(11_000).refusal('u1', '7')).toBeInstanceOf(EarlyRetryException);
    // A client looping every 100 ms never reaches its moment ...
    for (let t = 11_100; t < 15_000; t += 100) expect(at(t).refusal('u1', '7')).toBeInstanceOf(EarlyRetryException);
    // ... and one that then waits out the Retry-After it was given buys again.
    expect(at(16_000).refusal('u1', '7')).toBeUndefined();
  });

  it('keeps the furthest moment when answers of concurrent attempts arrive out of order', () => {
    const at = retriesOnClock();
    at(10_000).note('u1', '7', 30);
    at(10_010).note('u1', '7', 1);
    expect(at(10_300).refusal('u1', '7')?.retryAfterS).toBe(30);
  });
});
