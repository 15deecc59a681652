import { DistributedLockService, Lock, LockUnavailableError } from '@app/distributed-lock';
import type { DataSource } from 'typeorm';
import { FenceRepair } from './fence-repair';

/** A repair whose lock's extension fails with `error`, and whether it went on to read Postgres. */
function repairWhenExtendFails(error: Error) {
  const state = { queried: false };
  const db = { query: async () => ((state.queried = true), [{ lock_fence: '9' }]) } as unknown as DataSource;
  const repair = new FenceRepair({ advanceFence: async () => undefined } as unknown as DistributedLockService, db);
  const lock = { signal: new AbortController().signal, extend: () => Promise.reject(error) } as unknown as Lock;
  return { run: () => repair.repairFenceIfReset({ productId: '7', segment: null }, lock), state };
}

describe('FenceRepair when the lease cannot be extended', () => {
  it('repairs nothing while Redis is unreachable: the lease is not known to be ours', async () => {
    const { run, state } = repairWhenExtendFails(
      new LockUnavailableError('stock:7', 'the extension did not reach Redis'),
    );
    await expect(run()).resolves.toBe(false);
    expect(state.queried).toBe(false);
  });

  it('throws any other failure as it is', async () => {
    const bug = new Error('ERR wrong kind');
    const { run, state } = repairWhenExtendFails(bug);
    await expect(run()).rejects.toBe(bug);
    expect(state.queried).toBe(false);
  });
});
