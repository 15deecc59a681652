import type { RedisConnection } from '../common/redis/redis-client.factory';
import { RedisHold } from '../common/redis/redis-hold';
import type { RedisKeyPrefix } from '../common/redis/redis-keys';
import { USED_KEY_TTL_MS, UsedPurchaseKeys } from './used-purchase-keys';

/** A Redis of plain keys that can be made unreachable, and that counts its reads. */
function fakeRedis() {
  const keys = new Map<string, { value: string; ttlMs: number }>();
  const state: { down: boolean; reads: number; bug?: Error } = { down: false, reads: 0 };
  const unreachable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
  const redis = {
    set: async (key: string, value: string, _px: 'PX', ttlMs: number) => {
      if (state.bug) throw state.bug;
      if (state.down) throw unreachable();
      keys.set(key, { value, ttlMs });
      return 'OK';
    },
    exists: async (key: string) => {
      state.reads++;
      if (state.bug) throw state.bug;
      if (state.down) throw unreachable();
      return keys.has(key) ? 1 : 0;
    },
  };
  const used = new UsedPurchaseKeys(
    redis as unknown as RedisConnection,
    { value: 't:' } as RedisKeyPrefix,
    new RedisHold(),
  );
  return { used, keys, state };
}

describe('UsedPurchaseKeys', () => {
  afterEach(() => jest.useRealTimers());

  it('answers from one Redis read whether a user sent a key, per user, for a day', async () => {
    const { used, keys, state } = fakeRedis();
    await used.record('u1', 'key-1');
    expect(await used.mayHaveUsed('u1', 'key-1')).toBe(true);
    expect(await used.mayHaveUsed('u1', 'key-2')).toBe(false);
    expect(await used.mayHaveUsed('u2', 'key-1')).toBe(false);
    expect(state.reads).toBe(3);
    expect([...keys.values()].map((entry) => entry.ttlMs)).toEqual([USED_KEY_TTL_MS]);
  });

  it('sends the question to the orders when Redis cannot be read', async () => {
    const { used, state } = fakeRedis();
    state.down = true;
    expect(await used.mayHaveUsed('u1', 'never-sent')).toBe(true);
  });

  it('keeps a mark Redis could not take, counts it meanwhile, and writes it once Redis answers', async () => {
    jest.useFakeTimers();
    const { used, keys, state } = fakeRedis();
    state.down = true;
    await used.record('u1', 'key-1'); // the purchase goes on (Postgres guards it)
    state.down = false;
    state.reads = 0;
    expect(await used.mayHaveUsed('u1', 'key-1')).toBe(true);
    expect(state.reads).toBe(0); // known here without asking
    await jest.advanceTimersByTimeAsync(1000);
    expect(keys.has('t:purchase-key:{u1}:key-1')).toBe(true);
    used.onApplicationShutdown();
  });

  it('throws a failure that is not an unreachable Redis (a bug), neither keeping the mark nor guessing', async () => {
    const { used, state } = fakeRedis();
    state.bug = Object.assign(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'), {
      name: 'ReplyError',
    });
    await expect(used.record('u1', 'key-1')).rejects.toBe(state.bug);
    await expect(used.mayHaveUsed('u1', 'key-1')).rejects.toBe(state.bug);
    used.onApplicationShutdown();
  });
});
