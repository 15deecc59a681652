import { NoReplyError, withReplyTimeout } from './redis-errors';

describe('withReplyTimeout', () => {
  it('passes a reply that comes in time through', async () => {
    await expect(withReplyTimeout(Promise.resolve(7), 100, 'Redis')).resolves.toBe(7);
  });

  it('passes the driver error through', async () => {
    await expect(withReplyTimeout(Promise.reject(new Error('ECONNRESET')), 100, 'Redis')).rejects.toThrow('ECONNRESET');
  });

  it('rejects with NoReplyError once the time is up, not before', async () => {
    const never = new Promise<number>(() => undefined);
    const startedAt = performance.now();
    const error = await withReplyTimeout(never, 60, 'Redis').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoReplyError);
    expect((error as Error).message).toBe('Redis did not answer within 60 ms');
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(59);
  });

  it('times out each of many pending calls on its own deadline', async () => {
    const never = () => new Promise<number>(() => undefined);
    const outcomes = await Promise.allSettled([withReplyTimeout(never(), 30, 'a'), withReplyTimeout(Promise.resolve(1), 30, 'b'), withReplyTimeout(never(), 90, 'c')]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
  });
});
