import type { DistributedLockService as Service } from './distributed-lock.service';
import type { InMemoryDistributedLock as Memory } from './testing';

// prom-client is an optional peer dependency: without it installed, the module runs with
// metrics off by default, and asking for them explicitly says what is missing.
describe('metrics without prom-client installed', () => {
  let DistributedLockService: typeof Service;
  let InMemoryDistributedLock: typeof Memory;

  beforeAll(() => {
    jest.isolateModules(() => {
      jest.doMock('prom-client', () => {
        throw new Error("Cannot find module 'prom-client'");
      });
      ({ DistributedLockService } = jest.requireActual<{ DistributedLockService: typeof Service }>(
        './distributed-lock.service',
      ));
      ({ InMemoryDistributedLock } = jest.requireActual<{ InMemoryDistributedLock: typeof Memory }>('./testing'));
    });
  });
  afterAll(() => jest.dontMock('prom-client'));

  it('locks with metrics off when none were asked for', async () => {
    const service = new DistributedLockService(new InMemoryDistributedLock(), {});
    const lock = await service.acquire('stock:1');
    expect(await lock.release()).toBe(true);
    await service.onApplicationShutdown();
  });

  it('names the missing package when metrics are asked for', () => {
    expect(() => new DistributedLockService(new InMemoryDistributedLock(), { metrics: true })).toThrow(
      /lock metrics need prom-client/,
    );
  });
});
