import { LockLostError, LockUnavailableError } from '@app/distributed-lock';
import { runWithFallback } from './run-with-fallback';

describe('runWithFallback', () => {
  it('keeps the result of work that finished when the lease lapsed before the release', async () => {
    const underLock = async (work: (fence: number | null) => Promise<string>) => {
      await work(7);
      throw new LockLostError('stock:1');
    };
    await expect(runWithFallback('db', 'product lock', underLock, async () => 'committed')).resolves.toBe('committed');
  });

  it('still reports a lost lease when the work did not finish', async () => {
    const underLock = async () => {
      throw new LockLostError('stock:1');
    };
    await expect(runWithFallback('db', 'product lock', underLock, async () => 'never')).rejects.toBeInstanceOf(LockLostError);
  });

  it('runs the work without a fence when Redis is unreachable (db), refuses with 503 (reject)', async () => {
    const underLock = async () => {
      throw new LockUnavailableError('stock:1', 'no connection');
    };
    await expect(runWithFallback('db', 'product lock', underLock, async (fence) => fence)).resolves.toBeNull();
    await expect(runWithFallback('reject', 'product lock', underLock, async () => 'never')).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
  });
});

