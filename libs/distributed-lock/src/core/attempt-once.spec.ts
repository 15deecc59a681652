import type { AttemptResult, LeaseRef, LockBackend } from './backends/lock-backend';
import { NoReplyError } from './redis-errors';
import { now } from './timing';
import { attemptOnce } from './wait-for-lock';

// attemptOnce's promise against a backend whose replies the test controls: a reply that leaves
// no lease, and one that comes after the deadline, must give the lock back; a failed send must not.
describe('attemptOnce', () => {
  const request: LeaseRef = { keys: ['k'], token: 't' };
  let released: LeaseRef[];
  const backend = {
    release: async (lease: LeaseRef) => {
      released.push(lease);
      return true;
    },
  } as unknown as LockBackend;

  beforeEach(() => {
    released = [];
  });

  const reply =
    (result: AttemptResult, afterMs = 0) =>
    () =>
      new Promise<AttemptResult>((resolve) => setTimeout(() => resolve(result), afterMs));

  it('answers the reply when it leaves some of the lease', async () => {
    const sentAt = now();
    const taken: AttemptResult = { acquired: true, fence: 7, validUntil: sentAt + 5000 };
    await expect(attemptOnce(backend, request, sentAt, sentAt + 100, reply(taken))).resolves.toEqual(taken);
    expect(released).toEqual([]);
  });

  it('counts a reply whose lease is already spent as a failed try, and gives the lock back', async () => {
    const sentAt = now();
    const spent: AttemptResult = { acquired: true, fence: 7, validUntil: sentAt + 1 };
    await expect(attemptOnce(backend, request, sentAt, sentAt + 100, reply(spent, 10))).resolves.toEqual({
      acquired: false,
      holderTtlMs: 0,
    });
    expect(released).toEqual([request]);
  });

  it('rejects with NoReplyError when the reply misses its deadline, and gives back what the late reply took', async () => {
    const sentAt = now();
    const late: AttemptResult = { acquired: true, fence: 7, validUntil: sentAt + 60_000 };
    // The deadline is the wait's (here already over) plus a one-second grace.
    const attempt = attemptOnce(backend, request, sentAt, sentAt, reply(late, 1200));
    await expect(attempt).rejects.toBeInstanceOf(NoReplyError);
    expect(released).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(released).toEqual([request]);
  });

  it('gives the lock back when the driver gave up on a command that may still run (commandTimeout)', async () => {
    const sentAt = now();
    const timedOut = new Error('Command timed out');
    await expect(attemptOnce(backend, request, sentAt, sentAt + 100, () => Promise.reject(timedOut))).rejects.toBe(
      timedOut,
    );
    expect(released).toEqual([request]);
  });

  it('passes on a failed send without giving anything back', async () => {
    const sentAt = now();
    const failure = new Error('ECONNREFUSED');
    await expect(attemptOnce(backend, request, sentAt, sentAt + 100, () => Promise.reject(failure))).rejects.toBe(
      failure,
    );
    await expect(
      attemptOnce(backend, request, sentAt, sentAt + 100, () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(released).toEqual([]);
  });
});
