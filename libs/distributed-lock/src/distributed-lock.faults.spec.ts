import { blockEventLoop, RedisFixture, sleep, until } from '../test/redis-fixture';
import { spawnWorker } from '../test/spawn-worker';
import { DistributedLock } from './distributed-lock';
import { LockLostError, LockUnavailableError } from './errors';

jest.setTimeout(60_000);

describe('DistributedLock under faults', () => {
  let redis: RedisFixture;
  let locks: DistributedLock;

  beforeAll(async () => {
    redis = await RedisFixture.start();
  });
  beforeEach(() => {
    locks = new DistributedLock(redis.client(), { defaultWaitMs: 10_000 });
  });
  afterEach(() => locks.close());
  afterAll(() => redis.stop());

  it('frees the lock of a crashed holder once its lease expires', async () => {
    const holder = spawnWorker(['hold', redis.server.port, 'crash', 800]);
    const [, token] = (await holder.nextLine()).split(' ');
    holder.kill('SIGKILL');
    await holder.exited;
    expect(await redis.client().get('lock:{crash}')).toBe(token);
    const lock = await locks.acquire('crash', { waitMs: 5000 });
    expect(lock.token).not.toBe(token);
    await lock.release();
  });

  it('aborts the signal of a stalled holder, whose release then leaves the new holder alone', async () => {
    const lost: unknown[] = [];
    locks.on('lost', (e) => lost.push(e));
    const client = redis.client();
    let successor: ReturnType<typeof spawnWorker> | undefined;
    const outcome = locks.using('stalled', { ttlMs: 600 }, async (signal, lock) => {
      successor = spawnWorker(['take', redis.server.port, 'stalled', 20_000, 3000]);
      while ((await client.llen('lock:{stalled}#queue')) === 0) await sleep(20);
      blockEventLoop(1500); // past the 600 ms lease: no renewal can go out
      await sleep(50);
      expect(signal.aborted).toBe(true);
      const [, successorToken] = (await successor.nextLine()).split(' ');
      expect(await lock.release()).toBe(false);
      expect(await client.get('lock:{stalled}')).toBe(successorToken);
      return 'done';
    });
    await expect(outcome).rejects.toBeInstanceOf(LockLostError);
    expect(lost).toEqual([expect.objectContaining({ key: 'stalled' })]);
    await successor?.exited;
  });

  it('throws LockUnavailableError, not a timeout, when Redis is down', async () => {
    const dead = await RedisFixture.start();
    const deadLocks = new DistributedLock(dead.client(), { defaultWaitMs: 500 });
    const events: unknown[] = [];
    deadLocks.on('unavailable', (e) => events.push(e));
    await dead.server.kill();
    const error = await deadLocks.acquire('down').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockUnavailableError);
    expect((error as LockUnavailableError).key).toBe('down');
    expect(events).toHaveLength(1);
    await expect(deadLocks.tryAcquire('down')).rejects.toBeInstanceOf(LockUnavailableError);
    await deadLocks.close();
    await dead.stop();
  });

  it('reports renewalFailed and then lost when Redis goes away under a watched lock', async () => {
    const flaky = await RedisFixture.start();
    // As the app configures its clients: a command with no connection fails at once instead of
    // waiting in the offline queue for reconnection attempts, whose timing a loaded machine stretches
    // past the lease (the renewal then never failed before the validity ran out).
    const client = flaky.client({ enableOfflineQueue: false });
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    const flakyLocks = new DistributedLock(client, {});
    const events: string[] = [];
    flakyLocks.on('renewalFailed', () => events.push('renewalFailed'));
    flakyLocks.on('lost', () => events.push('lost'));
    const outcome = flakyLocks.using('flaky', { ttlMs: 3000 }, async (signal) => {
      await flaky.server.kill();
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
    });
    await expect(outcome).rejects.toBeInstanceOf(LockLostError);
    expect(events).toContain('renewalFailed');
    expect(events[events.length - 1]).toBe('lost');
    await flakyLocks.close();
    await flaky.stop();
  });

  it('leaves no lock behind when the driver times out an acquire that Redis runs later', async () => {
    const slow = await RedisFixture.start();
    // As the app configures its clients: the driver gives up on a command after 200 ms.
    const client = slow.client({ commandTimeout: 200, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    const slowLocks = new DistributedLock(client, {});
    const probe = slow.client();
    // Connected, scripts loaded: the next acquire goes straight out as one script call.
    await (await slowLocks.acquire('late', { waitMs: 0 })).release();
    slow.server.pause();
    const error = await slowLocks.acquire('late', { ttlMs: 30_000, waitMs: 2000 }).catch((e: unknown) => e);
    slow.server.resume();
    expect(error).toBeInstanceOf(LockUnavailableError);
    // Redis runs the acquire it had queued, then the release sent right behind it.
    await until(async () => (await probe.exists('lock:{late}')) === 0 && (await probe.ping()) === 'PONG');
    const next = await slowLocks.acquire('late', { waitMs: 0 });
    await next.release();
    await slowLocks.close();
    await slow.stop();
  });
});
