import type { RedisConnection } from '../common/redis/redis-client.factory';
import { RedisHold } from '../common/redis/redis-hold';
import type { RedisKeyPrefix } from '../common/redis/redis-keys';
import { SoldOutFlags } from './sold-out-flags';

/** A Redis whose EXISTS replies wait until the test answers them, and that counts them. */
function heldRedis() {
  const asked: Array<(flag: number) => void> = [];
  const redis = {
    exists: () => new Promise<number>((resolve) => asked.push(resolve)),
    del: async () => 1,
    set: async () => 'OK',
  };
  const flags = new SoldOutFlags(
    redis as unknown as RedisConnection,
    { value: 't:' } as RedisKeyPrefix,
    new RedisHold(),
  );
  return { flags, asked };
}

describe('SoldOutFlags', () => {
  it('sends one EXISTS for all the purchases of a product that arrive while it is read', async () => {
    const { flags, asked } = heldRedis();
    const answers = Array.from({ length: 50 }, () => flags.isSoldOut('7'));
    expect(asked).toHaveLength(1);
    asked[0](1);
    expect(await Promise.all(answers)).toEqual(Array(50).fill(true));
    // Remembered: the next purchase asks nobody.
    expect(flags.knownSoldOut('7')).toBe(true);
    await flags.isSoldOut('7');
    expect(asked).toHaveLength(1);
  });

  it('reads each product on its own', () => {
    const { flags, asked } = heldRedis();
    void flags.isSoldOut('1');
    void flags.isSoldOut('2');
    expect(asked).toHaveLength(2);
  });

  it('lets no read sent before a cancel returned units answer a later buyer', async () => {
    const { flags, asked } = heldRedis();
    const before = flags.isSoldOut('7');
    await flags.clear('7');
    const after = flags.isSoldOut('7');
    asked[0](1); // the flag as it was before the cancel
    await before;
    expect(await after).toBe(false);
    expect(flags.knownSoldOut('7')).toBe(false);
  });

  it('asks again once a read has answered "in stock"', async () => {
    const { flags, asked } = heldRedis();
    const first = flags.isSoldOut('7');
    asked[0](0);
    expect(await first).toBe(false);
    void flags.isSoldOut('7');
    expect(asked).toHaveLength(2);
  });

  describe('when Redis fails', () => {
    const unreachable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    let calls = 0;
    const failing = (error: Error) => {
      const fail = () => (calls++, Promise.reject(error));
      const redis = { exists: fail, set: fail, del: fail };
      return new SoldOutFlags(redis as unknown as RedisConnection, { value: 't:' } as RedisKeyPrefix, new RedisHold());
    };

    it('goes on without the flag while Redis is unreachable: not sold out, writes skipped', async () => {
      const flags = failing(unreachable());
      expect(await flags.isSoldOut('7')).toBe(false);
      await expect(flags.mark('7')).resolves.toBeUndefined();
      await expect(flags.clear('7')).resolves.toBeUndefined();
    });

    it('throws any other failure (a bug), and lets the next read ask again', async () => {
      const bug = new Error('ERR wrong kind');
      const flags = failing(bug);
      calls = 0;
      await expect(flags.isSoldOut('7')).rejects.toBe(bug);
      await expect(flags.isSoldOut('7')).rejects.toBe(bug);
      expect(calls).toBe(2); // the failed read was not kept for later buyers: Redis was asked again
      await expect(flags.mark('8')).rejects.toBe(bug);
      await expect(flags.clear('8')).rejects.toBe(bug);
    });
  });
});
