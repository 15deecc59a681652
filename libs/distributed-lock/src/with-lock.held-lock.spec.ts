import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DistributedLockService } from './distributed-lock.service';
import { LockLostError, LockTimeoutError, LockUnavailableError } from './errors';
import type { Lock } from './lock';
import { FakeDistributedLockService } from './testing';
import { HeldLock, WithLock } from './with-lock.decorator';

interface Batch {
  productId: string;
  waitMs: number;
}

@Injectable()
class Stock {
  readonly fences: (number | null)[] = [];

  @WithLock('stock:<productId>', { reentrant: false, waitMs: (batch: Batch) => batch.waitMs })
  async take(_batch: Batch, @HeldLock() lock?: Lock): Promise<string | undefined> {
    this.fences.push(lock ? lock.fence : null);
    await new Promise((resolve) => setImmediate(resolve));
    return lock?.key;
  }

  @WithLock('stock:<productId>', { reentrant: false, fenced: true })
  async takeFenced(_batch: Batch, @HeldLock() lock?: Lock): Promise<string> {
    this.fences.push(lock ? lock.fence : null);
    return lock ? 'locked' : 'unlocked';
  }
}

/** A lock service whose `using` fails as told, for the paths a real Redis cannot be made to take on cue. */
function failingService(
  failure: 'unreachable' | 'lost-after-return',
  whenUnreachable: 'throw' | 'run-unlocked',
): DistributedLockService {
  const lock = { key: 'stock:1', fence: 7 } as Lock;
  return {
    whenUnreachable,
    using: async (_key: string, _opts: unknown, fn: (signal: AbortSignal, lock: Lock) => Promise<unknown>) => {
      if (failure === 'unreachable') throw new LockUnavailableError('stock:1', 'connection refused');
      await fn(new AbortController().signal, lock);
      throw new LockLostError('stock:1');
    },
  } as unknown as DistributedLockService;
}

async function stockWith(service: DistributedLockService | (new () => DistributedLockService)): Promise<Stock> {
  const provider =
    typeof service === 'function'
      ? { provide: DistributedLockService, useClass: service }
      : { provide: DistributedLockService, useValue: service };
  const moduleRef = await Test.createTestingModule({ providers: [provider, Stock] }).compile();
  return moduleRef.get(Stock);
}

describe('@WithLock with reentrant: false and @HeldLock()', () => {
  it('hands the method the lock it took, through the marked parameter, and serialises callers', async () => {
    const stock = await stockWith(FakeDistributedLockService);
    const keys = await Promise.all([
      stock.take({ productId: '1', waitMs: 1000 }),
      stock.take({ productId: '1', waitMs: 1000 }),
    ]);
    expect(keys).toEqual(['stock:1', 'stock:1']);
    expect(stock.fences[1]).toBeGreaterThan(stock.fences[0] as number);
  });

  it('bounds the wait by the waitMs the call computes from its arguments', async () => {
    const stock = await stockWith(FakeDistributedLockService);
    const first = stock.take({ productId: '2', waitMs: 1000 });
    await expect(stock.take({ productId: '2', waitMs: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
    await first;
  });

  it('runs a fenced method unlocked when Redis is unreachable and the module says run-unlocked', async () => {
    const stock = await stockWith(failingService('unreachable', 'run-unlocked'));
    await expect(stock.takeFenced({ productId: '1', waitMs: 0 })).resolves.toBe('unlocked');
    expect(stock.fences).toEqual([null]);
  });

  it('refuses a fenced method when Redis is unreachable and the module says throw', async () => {
    const stock = await stockWith(failingService('unreachable', 'throw'));
    await expect(stock.takeFenced({ productId: '1', waitMs: 0 })).rejects.toBeInstanceOf(LockUnavailableError);
    expect(stock.fences).toEqual([]);
  });

  it('keeps the result of a fenced method whose lease was found lost only after it returned', async () => {
    const stock = await stockWith(failingService('lost-after-return', 'throw'));
    await expect(stock.takeFenced({ productId: '1', waitMs: 0 })).resolves.toBe('locked');
  });

  it('reports a lost lease of a method that is not fenced', async () => {
    const stock = await stockWith(failingService('lost-after-return', 'throw'));
    await expect(stock.take({ productId: '1', waitMs: 0 })).rejects.toBeInstanceOf(LockLostError);
  });
});
