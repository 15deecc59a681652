import type { RedisConnection } from '../common/redis/redis-client.factory';
import { RedisHold } from '../common/redis/redis-hold';
import type { RedisKeyPrefix } from '../common/redis/redis-keys';
import { ProductCache } from './product-catalog.service';
import type { ProductView } from './product.view';

/** A Redis stand-in that answers GETs only when told to, to hold reads in flight. */
function slowRedis() {
  const gets: Array<(raw: string | null) => void> = [];
  const commands: string[] = [];
  const redis = {
    get: (key: string) => (commands.push(`GET ${key}`), new Promise<string | null>((resolve) => gets.push(resolve))),
    del: async (key: string) => (commands.push(`DEL ${key}`), 1),
    set: async (key: string) => (commands.push(`SET ${key}`), 'OK'),
  };
  return { redis: redis as unknown as RedisConnection, gets, commands };
}

const view = (stock: number) =>
  ({
    id: '7',
    sku: 'S',
    name: 'n',
    priceCents: 1,
    stock,
    perUserLimit: 1,
    saleStartsAt: null,
    saleEndsAt: null,
  }) as ProductView;
const entry = (stock: number) => JSON.stringify({ v: view(stock), f: Date.now() + 30_000 });

describe('ProductCache reads', () => {
  it('shares one GET between readers of a product that arrive while it is in flight', async () => {
    const { redis, gets, commands } = slowRedis();
    const cache = new ProductCache(redis, { value: 'fs:' } as RedisKeyPrefix, new RedisHold());
    const reads = [cache.read('7'), cache.read('7'), cache.read('7')];
    expect(commands).toHaveLength(1);
    gets[0](entry(5));
    for (const read of await Promise.all(reads)) expect(read?.view?.stock).toBe(5);
    void cache.read('7');
    expect(commands).toHaveLength(2);
  });

  it('does not let a reader who arrives after an invalidation join the older GET', async () => {
    const { redis, gets, commands } = slowRedis();
    const cache = new ProductCache(redis, { value: 'fs:' } as RedisKeyPrefix, new RedisHold());
    const before = cache.read('7');
    await cache.invalidate('7');
    const after = cache.read('7');
    expect(commands.map((c) => c.split(' ')[0])).toEqual(['GET', 'SET', 'GET']);
    gets[0](entry(5));
    expect((await before)?.view?.stock).toBe(5);
    // The older read settling leaves the newer one in place for later readers to join.
    const joiner = cache.read('7');
    expect(commands.filter((c) => c.startsWith('GET'))).toHaveLength(2);
    gets[1](null);
    expect(await after).toBeUndefined();
    expect(await joiner).toBeUndefined();
  });

  it('keeps proof that a changed product exists: no view to serve, but not a miss', async () => {
    const stored = new Map<string, string>();
    const redis = {
      get: async (key: string) => stored.get(key) ?? null,
      set: async (key: string, value: string) => (stored.set(key, value), 'OK'),
      del: async (key: string) => Number(stored.delete(key)),
    } as unknown as RedisConnection;
    const cache = new ProductCache(redis, { value: 'fs:' } as RedisKeyPrefix, new RedisHold());
    await cache.write('7', view(5));
    await cache.invalidate('7');
    expect(await cache.read('7')).toEqual({ view: undefined, fresh: false });
    expect(await cache.read('8')).toBeUndefined();
  });

  describe('when Redis fails', () => {
    const failing = (error: Error) => {
      const fail = () => Promise.reject(error);
      const redis = { get: fail, set: fail, del: fail } as unknown as RedisConnection;
      return new ProductCache(redis, { value: 'fs:' } as RedisKeyPrefix, new RedisHold());
    };

    it('misses and skips its writes while Redis is unreachable (Postgres answers)', async () => {
      const cache = failing(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }));
      expect(await cache.read('7')).toBeUndefined();
      await expect(cache.write('7', view(5))).resolves.toBeUndefined();
      await expect(cache.invalidate('7')).resolves.toBeUndefined();
    });

    it('throws any other failure: a bug is not a miss', async () => {
      const bug = Object.assign(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'), {
        name: 'ReplyError',
      });
      const cache = failing(bug);
      await expect(cache.read('7')).rejects.toBe(bug);
      await expect(cache.write('7', view(5))).rejects.toBe(bug);
      await expect(cache.invalidate('7')).rejects.toBe(bug);
    });
  });
});
