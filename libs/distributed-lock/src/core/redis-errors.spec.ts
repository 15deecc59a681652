import { isRedisUnreachable, NoReplyError, withReplyTimeout } from './redis-errors';

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
    const outcomes = await Promise.allSettled([
      withReplyTimeout(never(), 30, 'a'),
      withReplyTimeout(Promise.resolve(1), 30, 'b'),
      withReplyTimeout(never(), 90, 'c'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
  });
});

describe('isRedisUnreachable', () => {
  it("knows the driver's ways of saying there is no answer", () => {
    for (const message of [
      'connect ECONNREFUSED 127.0.0.1:6379',
      'Connection is closed.',
      'Command timed out',
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Failed to refresh slots cache.',
    ]) {
      expect(isRedisUnreachable(new Error(message))).toBe(true);
    }
    expect(isRedisUnreachable(new NoReplyError('Redis', 50))).toBe(true);
    expect(isRedisUnreachable(Object.assign(new Error('socket'), { code: 'ECONNRESET' }))).toBe(true);
  });

  it('knows Redis\' own "not now" replies, as written', () => {
    for (const reply of [
      'MOVED 3999 127.0.0.1:6381',
      "READONLY You can't write against a read only replica.",
      'CLUSTERDOWN The cluster is down',
      'LOADING Redis is loading the dataset in memory',
    ]) {
      expect(isRedisUnreachable(new Error(reply))).toBe(true);
    }
  });

  it('does not take a bug or an ordinary word for an outage', () => {
    expect(isRedisUnreachable(new Error('ERR Error running script: attempt to compare nil with number'))).toBe(false);
    expect(isRedisUnreachable(new Error('the key was removed while loading the page'))).toBe(false);
    expect(isRedisUnreachable('Connection is closed')).toBe(false);
  });
});
