import type Redis from 'ioredis';
import { RedisFixture } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';

describe('DistributedLock: bad arguments get a clear error', () => {
  let redis: RedisFixture;
  let client: Redis;
  let locks: DistributedLock;

  beforeAll(async () => {
    redis = await RedisFixture.start();
    client = redis.client();
    locks = new DistributedLock(client);
  });
  afterAll(async () => {
    await locks.close();
    await redis.stop();
  });

  it('names a missing or wrong client', () => {
    expect(() => new DistributedLock(null as never)).toThrow(/first argument must be an ioredis client .*; got null/);
    expect(() => new DistributedLock(undefined as never)).toThrow(/got undefined/);
    expect(() => new DistributedLock({} as never)).toThrow(/got an object/);
    expect(() => new DistributedLock([] as never)).toThrow(/got an array of 0/);
    expect(() => new DistributedLock([client, client])).toThrow(/Redlock needs at least 3/);
  });

  it('names a bad option and the value given', () => {
    expect(() => new DistributedLock(client, null as never)).toThrow(/options must be an object; got null/);
    expect(() => new DistributedLock(client, { defaultTtlMs: '5000' as never })).toThrow(
      /defaultTtlMs must be a whole number of ms, 1 or more; got the string "5000"/,
    );
    expect(() => new DistributedLock(client, { defaultWaitMs: -1 })).toThrow(/defaultWaitMs/);
    expect(() => new DistributedLock(client, { driftFactor: 2 })).toThrow(/driftFactor must be a fraction/);
    expect(() => new DistributedLock(client, { maxLocalHandoffs: 1.5 })).toThrow(/maxLocalHandoffs/);
    expect(() => new DistributedLock(client, { waitForReplicas: { replicas: 0, timeoutMs: 100 } })).toThrow(
      /waitForReplicas/,
    );
    expect(() => new DistributedLock(client, { subscriber: 'redis://x' as never })).toThrow(
      /subscriber must be an ioredis client/,
    );
  });

  it('rejects a bad key or acquire option before anything reaches Redis', async () => {
    await expect(locks.acquire(null as never)).rejects.toThrow(/invalid lock key: null/);
    await expect(locks.acquire([])).rejects.toThrow(/at least one key/);
    await expect(locks.acquire('args', null as never)).rejects.toThrow(/acquire options must be an object; got null/);
    await expect(locks.acquire('args', { ttlMs: 0 })).rejects.toThrow(
      /ttlMs must be a whole number of ms, 1 or more; got number 0/,
    );
    await expect(locks.tryAcquire('args', { ttlMs: 1.5 })).rejects.toThrow(/ttlMs/);
    await expect(locks.acquire('args', { waitMs: Number.NaN })).rejects.toThrow(
      /waitMs must be a number of ms, 0 or more/,
    );
    await expect(locks.acquire('args', { fair: 'yes' as never })).rejects.toThrow(/fair must be a boolean/);
    await expect(locks.acquire('args', { signal: {} as never })).rejects.toThrow(/signal must be an AbortSignal/);
    await expect(locks.acquire('args', { reentrant: 'no' as never })).rejects.toThrow(/reentrant must be a boolean/);
    await expect(locks.using('args', { ttlMs: -5 }, async () => 'ran')).rejects.toThrow(/ttlMs/);
    expect(await client.exists('lock:{args}')).toBe(0);
  });
});
