import { LockAbortedError, LockTimeoutError } from '../errors';
import { InMemoryDistributedLock } from './in-memory-distributed-lock';

// The fake answers like the real core where a consumer's tests can observe it.
describe('InMemoryDistributedLock', () => {
  it('excludes, times out and hands out growing fences', async () => {
    const locks = new InMemoryDistributedLock({ defaultWaitMs: 50 });
    const first = await locks.acquire('stock:1');
    expect(await locks.tryAcquire('stock:1')).toBeNull();
    await expect(locks.acquire('stock:1')).rejects.toBeInstanceOf(LockTimeoutError);
    await first.release();
    const second = await locks.acquire('stock:1');
    expect(second.fence).toBeGreaterThan(first.fence);
    await second.release();
  });

  it('holds a lock under a given token, which takes the key over as it stands', async () => {
    const locks = new InMemoryDistributedLock({ defaultWaitMs: 50 });
    const held = await locks.acquire('stock:3', { token: 'job-7' });
    expect(held.token).toBe('job-7');
    expect(await locks.tryAcquire('stock:3')).toBeNull();
    const takenOver = await locks.tryAcquire('stock:3', { token: 'job-7' });
    expect(takenOver?.fence).toBe(held.fence);
    expect(await takenOver?.release()).toBe(true);
    expect(locks.isHeld('stock:3')).toBe(false);
  });

  it('ends a wait when its signal aborts', async () => {
    const locks = new InMemoryDistributedLock({ defaultWaitMs: 60_000 });
    const held = await locks.acquire('stock:2');
    const controller = new AbortController();
    const waiting = locks.acquire('stock:2', { signal: controller.signal });
    controller.abort('gone');
    await expect(waiting).rejects.toBeInstanceOf(LockAbortedError);
    await expect(locks.acquire('stock:2', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(LockAbortedError);
    await held.release();
  });

  it('re-enters within a using scope unless the inner call says reentrant: false', async () => {
    const locks = new InMemoryDistributedLock({ defaultWaitMs: 50 });
    await locks.using('stock:3', {}, async (_s, outer) => {
      await locks.using('stock:3', {}, async (_s2, inner) => expect(inner.fence).toBe(outer.fence));
      await expect(locks.using('stock:3', { reentrant: false }, async () => 'ran')).rejects.toBeInstanceOf(
        LockTimeoutError,
      );
    });
    await locks.using('stock:3', { reentrant: false }, async (_s, lock) => {
      expect(locks.current('stock:3')).toBeUndefined();
      expect(locks.isHeld('stock:3')).toBe(true);
      expect(lock.key).toBe('stock:3');
    });
  });
});
