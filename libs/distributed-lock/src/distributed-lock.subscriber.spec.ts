import type Redis from 'ioredis';
import { RedisFixture, until } from '../test/redis-fixture';
import { DistributedLock } from './distributed-lock';

describe("DistributedLock: the waiters' subscriber", () => {
  let redis: RedisFixture;
  let admin: Redis;

  beforeAll(async () => {
    redis = await RedisFixture.start();
    admin = redis.client();
  });
  afterAll(() => redis.stop());

  it('subscribes once its duplicate() of an enableOfflineQueue: false client connects, so the first handoff comes by message', async () => {
    const client = redis.client({ enableOfflineQueue: false });
    await until(() => client.status === 'ready');
    const waiterLocks = new DistributedLock(client, { defaultWaitMs: 10_000 });
    const holderLocks = new DistributedLock(redis.client());
    try {
      const held = await holderLocks.acquire('first-handoff');
      const sent = jest.spyOn(client, 'evalsha');
      const waiting = waiterLocks.acquire('first-handoff');
      await until(async () => (await admin.pubsub('NUMSUB', 'lock:{first-handoff}#wake'))[1] === 1);
      // The first try (which queued the waiter) and the re-check once the subscription was live.
      await until(() => sent.mock.calls.length === 2);
      const triesBeforeRelease = sent.mock.calls.length;
      await held.release();
      const lock = await waiting;
      expect(await admin.get('lock:{first-handoff}')).toBe(lock.token);
      expect(lock.fence).toBeGreaterThan(held.fence);
      // Handed over by the release and told by the message: no further try of its own.
      expect(sent.mock.calls.length).toBe(triesBeforeRelease);
      await lock.release();
    } finally {
      await Promise.all([waiterLocks.close(), holderLocks.close()]);
    }
  });
});
