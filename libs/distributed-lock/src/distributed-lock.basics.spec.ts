import { RedisFixture, sleep } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';
import { LockTimeoutError } from './errors';
import { extendScript } from './core/scripts/extend';
import { releaseScript } from './core/scripts/release';

describe('DistributedLock: acquire, release, extend', () => {
  let redis: RedisFixture;
  let locks: DistributedLock;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    locks = new DistributedLock(redis.client(), { defaultTtlMs: 2000, defaultWaitMs: 500 });
  });
  afterEach(() => locks.close());
  afterAll(() => redis.stop());

  it('grants a free lock and stores the random owner token under a hash-tagged key', async () => {
    const lock = await locks.acquire('stock:1');
    expect(lock.key).toBe('stock:1');
    expect(lock.keys).toEqual(['stock:1']);
    expect(lock.token).toMatch(/^[0-9a-f]{32}$/);
    expect(await redis.client().get('lock:{stock:1}')).toBe(lock.token);
    expect(lock.validUntil).toBeGreaterThan(lock.acquiredAt);
    expect(await lock.release()).toBe(true);
    expect(await redis.client().exists('lock:{stock:1}')).toBe(0);
  });

  it('gives every holder a different token', async () => {
    const a = await locks.acquire('tokens');
    await a.release();
    const b = await locks.acquire('tokens');
    expect(b.token).not.toBe(a.token);
    await b.release();
  });

  it('holds a lock under a token the caller gives, which another process may take over, extend and release', async () => {
    const other = new DistributedLock(redis.client(), { defaultTtlMs: 2000, defaultWaitMs: 500 });
    try {
      const lock = await locks.acquire('shared', { token: 'job-7' });
      expect(lock.token).toBe('job-7');
      expect(await redis.client().get('lock:{shared}')).toBe('job-7');
      expect(await other.tryAcquire('shared')).toBeNull();
      const takenOver = await other.tryAcquire('shared', { token: 'job-7' });
      expect(takenOver?.fence).toBeGreaterThanOrEqual(lock.fence);
      expect(await takenOver?.extend(3000)).toBe(true);
      expect(await takenOver?.release()).toBe(true);
      expect(await redis.client().exists('lock:{shared}')).toBe(0);
      await expect(locks.acquire('shared', { token: '' })).rejects.toThrow('token must be a non-empty string');
    } finally {
      await other.close();
    }
  });

  it('answers null from tryAcquire when the lock is held elsewhere, without waiting', async () => {
    const held = await locks.acquire('busy');
    const started = performance.now();
    expect(await locks.tryAcquire('busy', { waitMs: 5000 })).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
    await held.release();
  });

  it('throws LockTimeoutError when the lock stays held past waitMs', async () => {
    const held = await locks.acquire('contended');
    const timeouts: unknown[] = [];
    locks.on('timeout', (e) => timeouts.push(e));
    const error = await locks.acquire('contended', { waitMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as LockTimeoutError).key).toBe('contended');
    expect(timeouts).toEqual([expect.objectContaining({ key: 'contended' })]);
    await held.release();
  });

  it('makes release idempotent: a second call changes nothing and answers the same', async () => {
    const lock = await locks.acquire('twice');
    expect(await lock.release()).toBe(true);
    const next = await locks.acquire('twice');
    expect(await lock.release()).toBe(true);
    expect(await redis.client().get('lock:{twice}')).toBe(next.token);
    await next.release();
  });

  it('refuses to release a lock it no longer owns', async () => {
    const stale = await locks.acquire('expiring', { ttlMs: 100 });
    await sleep(250);
    const other = new DistributedLock(redis.client());
    const current = await other.acquire('expiring');
    expect(await stale.release()).toBe(false);
    expect(await redis.client().get('lock:{expiring}')).toBe(current.token);
    await other.close();
  });

  it('refuses, in Lua, to release or extend with a wrong token', async () => {
    const lock = await locks.acquire('lua', { ttlMs: 1500 });
    const client = redis.client();
    const names = ['lock:{lua}', 'lock:#fence', 'lock:{lua}#queue', 'lock:{lua}#waiters'];
    expect(await releaseScript.run(client, names, ['not-the-token'])).toBe(0);
    expect(await extendScript.run(client, ['lock:{lua}'], ['not-the-token', 60000])).toBe(0);
    expect(await client.get('lock:{lua}')).toBe(lock.token);
    expect(await client.pttl('lock:{lua}')).toBeLessThanOrEqual(1500);
    await lock.release();
  });

  it('extends its own lease and emits "extended"', async () => {
    const events: unknown[] = [];
    locks.on('extended', (e) => events.push(e));
    const lock = await locks.acquire('extend-me', { ttlMs: 1000 });
    const before = lock.validUntil;
    expect(await lock.extend(10_000)).toBe(true);
    expect(await redis.client().pttl('lock:{extend-me}')).toBeGreaterThan(5000);
    expect(lock.validUntil).toBeGreaterThan(before);
    expect(events).toEqual([{ key: 'extend-me', ttlMs: 10_000 }]);
    await lock.release();
    expect(await lock.extend()).toBe(false);
  });

  it('hands out fences that increase with every new holder', async () => {
    const fences: number[] = [];
    for (let i = 0; i < 5; i++) {
      const lock = await locks.acquire('fenced');
      fences.push(lock.fence);
      await lock.release();
    }
    const other = new DistributedLock(redis.client());
    const fromElsewhere = await other.acquire('fenced');
    fences.push(fromElsewhere.fence);
    await other.close();
    expect(fences).toEqual([...fences].sort((a, b) => a - b));
    expect(new Set(fences).size).toBe(fences.length);
  });

  it('leaves nothing behind a released key: every key shares one fence counter', async () => {
    const own = new DistributedLock(redis.client(), { prefix: 'leftover:' });
    const fences: number[] = [];
    for (let i = 0; i < 20; i++) {
      const lock = await own.acquire(`order:${i}`);
      fences.push(lock.fence);
      await lock.release();
    }
    await own.close();
    expect(await redis.client().keys('leftover:*')).toEqual(['leftover:#fence']);
    expect(await redis.client().pttl('leftover:#fence')).toBe(-1);
    expect(fences).toEqual([...fences].sort((a, b) => a - b));
  });

  it('emits acquired and released with monotonic timings', async () => {
    const events: Array<[string, Record<string, unknown>]> = [];
    locks.on('acquired', (e) => events.push(['acquired', e]));
    locks.on('released', (e) => events.push(['released', e]));
    const lock = await locks.acquire('observed');
    await sleep(20);
    await lock.release();
    expect(events[0]).toEqual([
      'acquired',
      { key: 'observed', waitMs: expect.any(Number), fence: lock.fence, reentrant: false },
    ]);
    expect(events[1]).toEqual(['released', { key: 'observed', holdMs: expect.any(Number), wasHeld: true }]);
    expect(events[1][1].holdMs as number).toBeGreaterThanOrEqual(15);
  });

  it('keeps a caller hash tag, so keys can share a Cluster slot', async () => {
    const lock = await locks.acquire('{order:7}:line:1');
    expect(await redis.client().get('lock:{order:7}:line:1')).toBe(lock.token);
    await lock.release();
  });
});

describe('DistributedLock: fences after Redis lost its data', () => {
  let redis: RedisFixture;
  let locks: DistributedLock;

  beforeAll(async () => {
    redis = await RedisFixture.start();
    locks = new DistributedLock(redis.client(), { defaultTtlMs: 2000 });
  });
  afterAll(async () => {
    await locks.close();
    await redis.stop();
  });

  it('lifts a counter that started over to the fence the storage last saw, and never lowers one', async () => {
    const before = await locks.acquire('stock:reset');
    await before.release();
    await redis.client().flushall();
    await locks.advanceFence('stock:reset', 500);
    const after = await locks.acquire('stock:reset');
    expect(after.fence).toBe(501);
    await after.release();
    await locks.advanceFence('stock:reset', 10);
    const next = await locks.acquire('stock:reset');
    expect(next.fence).toBe(502);
    await next.release();
  });
});
