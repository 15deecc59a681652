import type Redis from 'ioredis';
import { RedisFixture, until } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';
import { LockAbortedError } from './errors';

describe('DistributedLock: an AbortSignal cancels a wait', () => {
  let redis: RedisFixture;
  let client: Redis;
  let locks: DistributedLock;
  let rival: DistributedLock;

  beforeAll(async () => {
    redis = await RedisFixture.start();
    client = redis.client();
  });
  beforeEach(() => {
    locks = new DistributedLock(redis.client(), { defaultWaitMs: 10_000 });
    rival = new DistributedLock(redis.client(), { defaultWaitMs: 10_000 });
  });
  afterEach(() => Promise.all([locks.close(), rival.close()]));
  afterAll(() => redis.stop());

  it('rejects a waiter queued in Redis with LockAbortedError, and the next release passes it by', async () => {
    const held = await rival.acquire('queued');
    const timeouts: unknown[] = [];
    locks.on('timeout', (e) => timeouts.push(e));
    const controller = new AbortController();
    const waiting = locks.acquire('queued', { signal: controller.signal });
    await until(async () => (await client.llen('lock:{queued}#queue')) === 1);
    const reason = new Error('the customer left');
    controller.abort(reason);
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockAbortedError);
    expect(error).toMatchObject({ key: 'queued', cause: reason });
    expect(timeouts).toEqual([]);
    expect(await client.llen('lock:{queued}#queue')).toBe(0);
    expect(await held.release()).toBe(true);
    expect(await client.exists('lock:{queued}')).toBe(0);
  });

  it("rejects a waiter in its own process's line, and the holder's release passes it by", async () => {
    const held = await locks.acquire('in-line');
    const controller = new AbortController();
    const waiting = locks.acquire('in-line', { signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(LockAbortedError);
    expect(await held.release()).toBe(true);
    expect(await client.exists('lock:{in-line}')).toBe(0);
    const again = await locks.acquire('in-line');
    expect(again.fence).toBeGreaterThan(held.fence);
    await again.release();
  });

  it('rejects at once, touching nothing, when the signal is already aborted', async () => {
    const error = await locks.acquire('already', { signal: AbortSignal.abort('gone') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockAbortedError);
    expect((error as Error).cause).toBe('gone');
    expect(await client.exists('lock:{already}')).toBe(0);
  });

  it('leaves a lock acquired before the abort held', async () => {
    const controller = new AbortController();
    const lock = await locks.acquire('kept', { signal: controller.signal });
    controller.abort();
    expect(lock.signal.aborted).toBe(false);
    expect(await client.get('lock:{kept}')).toBe(lock.token);
    expect(await lock.release()).toBe(true);
  });
});
