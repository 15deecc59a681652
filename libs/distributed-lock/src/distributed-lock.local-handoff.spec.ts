import { RedisFixture, sleep, until } from '../test/redis-fixture';
import { spawnWorker } from '../test/spawn-worker';
import { DistributedLock } from './distributed-lock';
import { LockUnavailableError } from './errors';
import type { Lock } from './lock';

jest.setTimeout(120_000);

describe('DistributedLock: handoff between waiters of one process', () => {
  let redis: RedisFixture;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  afterAll(() => redis.stop());

  it('keeps exclusion and monotonic fences with many chains in each of three processes', async () => {
    const client = redis.client();
    await client.del('inside', 'overlaps', 'fences');
    const workers = [0, 1, 2].map(() => spawnWorker(['crowd', redis.server.port, 'crowded', 8, 10]));
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0]);
    expect(await client.get('overlaps')).toBeNull();
    const fences = (await client.lrange('fences', 0, -1)).map(Number);
    expect(fences).toHaveLength(240);
    fences.forEach((fence, i) => i > 0 && expect(fence).toBeGreaterThan(fences[i - 1]));
  });

  it('passes the lock to local waiters in order, without a round trip per handoff', async () => {
    const client = redis.client();
    const locks = new DistributedLock(client, { defaultWaitMs: 10_000 });
    const spy = redis.client();
    await spy.config('RESETSTAT');
    const order: number[] = [];
    const fences: number[] = [];
    const tokens: string[] = [];
    const first = await locks.acquire('local-fifo');
    const waiters = Array.from({ length: 5 }, (_, i) =>
      locks.using('local-fifo', {}, async (_signal, lock) => {
        order.push(i);
        fences.push(lock.fence);
        tokens.push(lock.token);
      }),
    );
    // The waiters entered the line synchronously, and the first of them had the fences reserved;
    // a PING on the same connection answers after that script. Releasing now keeps the turn well
    // inside its 25 ms window, which a fixed sleep overran on a loaded host (the turn then ends
    // and the handoff goes through Redis, skipping the reserved fences).
    await client.ping();
    await first.release();
    await Promise.all(waiters);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(fences).toEqual([first.fence + 1, first.fence + 2, first.fence + 3, first.fence + 4, first.fence + 5]);
    // The waiters never queued in Redis nor subscribed: 1 acquire, one block of fences reserved
    // for the 5 handoffs while the first holder worked, 1 release.
    const stats = await spy.info('commandstats');
    expect(stats).not.toMatch(/cmdstat_subscribe:/);
    expect(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1]).toBe('3');
    expect(new Set(tokens)).toEqual(new Set([first.token])); // each inherited the holder's token
    await locks.close();
  });

  it('does not use a fence reserved before advanceFence raised the counter', async () => {
    const locks = new DistributedLock(redis.client());
    const held = await locks.acquire('raised');
    const next = locks.acquire('raised', { waitMs: 5000 });
    await sleep(20); // the fence for `next` is reserved meanwhile
    await locks.advanceFence('raised', held.fence + 100);
    await held.release();
    const lock = await next;
    expect(lock.fence).toBeGreaterThan(held.fence + 100);
    await lock.release();
    await locks.close();
  });

  it('never lets a passed-on lease outlive the lock in Redis, even after a shorter extension', async () => {
    const locks = new DistributedLock(redis.client());
    const spy = redis.client();
    const held = await locks.acquire('shortened', { ttlMs: 10_000 });
    const next = locks.acquire('shortened', { ttlMs: 10_000, waitMs: 5000 });
    await sleep(20); // reserved with a 10 s lease
    await held.extend(300); // now Redis expires the key in 300 ms
    await held.release();
    const lock = await next;
    const pttl = await spy.pttl('lock:{shortened}');
    expect(lock.validUntil - performance.now()).toBeLessThanOrEqual(pttl);
    expect(lock.validUntil - performance.now()).toBeGreaterThan(5000); // re-handed with a fresh ttl
    await lock.release();
    await locks.close();
  });

  it('gives a waiter of another process its turn after maxLocalHandoffs local handoffs', async () => {
    const busy = new DistributedLock(redis.client(), { maxLocalHandoffs: 3, defaultWaitMs: 10_000 });
    const other = new DistributedLock(redis.client(), { defaultWaitMs: 10_000 });
    let stop = false;
    let sections = 0;
    const chain = async (): Promise<void> => {
      while (!stop) {
        await busy.using('turns', {}, async () => {
          sections += 1;
          await sleep(1);
        });
      }
    };
    // The other process queues in Redis while a first holder keeps the busy chains in their line,
    // so every section counted below began after it queued, whatever the machine's speed.
    const first = await busy.acquire('turns');
    const chains = Array.from({ length: 4 }, chain);
    const wanted = other.acquire('turns');
    await until(async () => (await redis.client().llen('lock:{turns}#queue')) === 1);
    await first.release();
    const lock = await wanted;
    const localSections = sections;
    stop = true;
    await lock.release();
    await Promise.all(chains);
    // The first holder's run ends after at most 3 handoffs (sooner if it lasted 25 ms).
    expect(localSections).toBeLessThanOrEqual(3);
    await Promise.all([busy.close(), other.close()]);
  });

  it('does not keep local waiters behind a local holder whose lease ran out', async () => {
    const locks = new DistributedLock(redis.client());
    const leaked: Lock = await locks.acquire('leaked', { ttlMs: 300 });
    const started = performance.now();
    const next = await locks.acquire('leaked', { waitMs: 5000 });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(next.fence).toBeGreaterThan(leaked.fence);
    expect(await leaked.release()).toBe(false);
    expect(await next.release()).toBe(true);
    await locks.close();
  });

  it('times a local waiter out without disturbing the line', async () => {
    const locks = new DistributedLock(redis.client());
    const held = await locks.acquire('line-timeout');
    const patient = locks.acquire('line-timeout', { waitMs: 5000 });
    await expect(locks.acquire('line-timeout', { waitMs: 50 })).rejects.toThrow('line-timeout');
    await held.release();
    const lock = await patient;
    expect(lock.fence).toBeGreaterThan(held.fence);
    expect(await redis.client().get('lock:{line-timeout}')).toBe(lock.token);
    await lock.release();
    await locks.close();
  });

  it('tells local waiters the instance closed', async () => {
    const locks = new DistributedLock(redis.client());
    await locks.acquire('closing', { ttlMs: 10_000 });
    const waiting = locks.acquire('closing', { waitMs: 5000 }).catch((error: unknown) => error);
    await sleep(10);
    await locks.close();
    expect(await waiting).toBeInstanceOf(LockUnavailableError);
  });
});
