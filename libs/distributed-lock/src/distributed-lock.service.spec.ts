import { Logger } from '@nestjs/common';
import { CurrentLock, NoCurrentLockError } from './current-lock';
import type { LockConnections } from './distributed-lock.module';
import { DistributedLockService } from './distributed-lock.service';
import { InMemoryDistributedLock } from './testing';

function connections(createdByFactory: boolean): LockConnections {
  return { redis: [], createdByFactory, quitAll: jest.fn(async () => undefined) };
}

describe('DistributedLockService', () => {
  afterEach(() => jest.restoreAllMocks());

  it('releases the locks it holds on application shutdown', async () => {
    const memory = new InMemoryDistributedLock();
    const service = new DistributedLockService(memory, { metrics: false });
    const lock = await service.acquire('stock:1');
    await service.onApplicationShutdown();
    expect(memory.isHeld('stock:1')).toBe(false);
    expect(await lock.release()).toBe(false);
  });

  it.each([
    ['quits connections its redisFactory created', true, undefined, true],
    ['leaves a client the application passed in open', false, undefined, false],
    ['quits a passed-in client when closeClientsOnShutdown is true', false, true, true],
    ['keeps factory connections when closeClientsOnShutdown is false', true, false, false],
  ])('%s', async (_case, createdByFactory, closeClientsOnShutdown, quits) => {
    const conns = connections(createdByFactory);
    const service = new DistributedLockService(
      new InMemoryDistributedLock(),
      { metrics: false, closeClientsOnShutdown },
      conns,
    );
    await service.onApplicationShutdown();
    expect(conns.quitAll).toHaveBeenCalledTimes(quits ? 1 : 0);
  });

  it('stops listening to the core on shutdown', async () => {
    const memory = new InMemoryDistributedLock();
    const service = new DistributedLockService(memory, { metrics: false, longHoldWarnMs: 1 });
    expect(memory.listenerCount('released')).toBe(1);
    await service.onApplicationShutdown();
    expect(memory.listenerCount('released')).toBe(0);
  });

  it('warns through the Nest logger when a hold lasted longer than longHoldWarnMs', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const memory = new InMemoryDistributedLock();
    new DistributedLockService(memory, { metrics: false, longHoldWarnMs: 1000 });
    memory.emit('released', { key: 'stock:1', holdMs: 10, wasHeld: true });
    expect(warn).not.toHaveBeenCalled();
    memory.emit('released', { key: 'stock:1', holdMs: 2500, wasHeld: true });
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('Lock stock:1 was held for 2500 ms, longer than longHoldWarnMs (1000 ms)'),
    );
  });

  it('hands out unsubscribe functions from on()', () => {
    const memory = new InMemoryDistributedLock();
    const service = new DistributedLockService(memory, { metrics: false });
    const listener = jest.fn();
    const stop = service.on('timeout', listener);
    memory.emit('timeout', { key: 'k', waitMs: 1 });
    stop();
    memory.emit('timeout', { key: 'k', waitMs: 1 });
    expect(listener).toHaveBeenCalledTimes(1);
  });
});

describe('CurrentLock', () => {
  const service = new DistributedLockService(new InMemoryDistributedLock(), { metrics: false });
  const current = new CurrentLock(service);

  it('gives the lock, fence and signal of the work running under it', async () => {
    await service.using('stock:7', {}, async (signal, lock) => {
      expect(current.get()).toBe(lock);
      expect(current.get('stock:7')).toBe(lock);
      expect(current.fence).toBe(lock.fence);
      expect(current.signal).toBe(signal);
    });
  });

  it('throws a clear error outside any lock', () => {
    expect(() => current.fence).toThrow(NoCurrentLockError);
    expect(() => current.signal).toThrow('No distributed lock is held in this async call chain');
    expect(current.find()).toBeUndefined();
  });

  it('names the key it was asked for when that lock is not held', async () => {
    await service.using('stock:7', {}, async () => {
      expect(() => current.get('stock:8')).toThrow('The lock on stock:8 is not held in this async call chain');
    });
  });
});
