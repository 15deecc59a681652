import Redis from 'ioredis';
import { RedisKeyPrefix } from '../../apps/api/src/common/redis/redis-keys';
import { QueueStore } from '../../apps/api/src/waiting-room/queue-store';
import type { JoinReply } from '../../apps/api/src/waiting-room/scripts/join';
import { RedisServerProcess } from '../support/redis-server';

/**
 * Joins of one product arriving together share one script run (QueueStore's turn batching), on a
 * real Redis. What each joiner gets must be what it would get alone: its own ticket in arrival
 * order, the same ticket when it joins twice, a refusal only when sold out.
 */
describe('joins arriving together', () => {
  let server: RedisServerProcess;
  let redis: Redis;
  let store: QueueStore;
  let scriptRuns: () => Promise<number>;

  beforeAll(async () => {
    server = await RedisServerProcess.start();
    redis = server.client();
    store = new QueueStore(redis as never, { value: 'fs:' } as RedisKeyPrefix);
    const calls = (stats: string, command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    scriptRuns = async () => {
      const stats = await redis.info('commandstats');
      return calls(stats, 'evalsha') + calls(stats, 'eval');
    };
    await store.join('0', 'warm-up', Date.now(), null); // loads the script (EVALSHA, NOSCRIPT, EVAL)
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  const ticket = (reply: JoinReply) => (reply === 'sold-out' ? reply : { number: reply.number, created: reply.created });

  it('give each joiner its own ticket in arrival order, in one script run', async () => {
    const before = await scriptRuns();
    const now = Date.now();
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => store.join('1', `u${i}`, now, null)));
    expect(replies.map(ticket)).toEqual(Array.from({ length: 40 }, (_, i) => ({ number: i + 1, created: true })));
    expect(await scriptRuns()).toBe(before + 1);
    const statuses = replies.map((r) => (r === 'sold-out' ? null : r.status));
    expect(statuses.map((s) => s?.place)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(replies.map((r) => (r === 'sold-out' ? '' : r.epoch))).size).toBe(1);
  });

  it('give a user who joins twice in one batch, or again later, the same ticket', async () => {
    const now = Date.now();
    const replies = await Promise.all(['a', 'b', 'a', 'c', 'b'].map((user) => store.join('2', user, now, null)));
    expect(replies.map(ticket)).toEqual([
      { number: 1, created: true },
      { number: 2, created: true },
      { number: 1, created: false },
      { number: 3, created: true },
      { number: 2, created: false },
    ]);
    expect(ticket(await store.join('2', 'c', Date.now(), null))).toEqual({ number: 3, created: false });
  });

  it('freeze the pre-queue at the first join at or after the start, within the batch', async () => {
    const startsAt = Date.now() + 60_000;
    // Two joins before the start and two after it, sent together: the pre-queue is the first two.
    const replies = await Promise.all([
      store.join('3', 'early-1', startsAt - 10, startsAt),
      store.join('3', 'early-2', startsAt - 5, startsAt),
      store.join('3', 'late-1', startsAt, startsAt),
      store.join('3', 'late-2', startsAt + 5, startsAt),
    ]);
    expect(replies.map(ticket).map((t) => (t === 'sold-out' ? t : t.number))).toEqual([1, 2, 3, 4]);
    expect(await redis.hget('fs:{stock:3}:wr', 'pre')).toBe('2');
    // Statuses are read after the batch: the pre-queue's two wait for the shuffle (place -1), the others keep their arrival.
    expect(replies.map((r) => (r === 'sold-out' ? null : [r.status.pre, r.status.place]))).toEqual([
      [2, -1],
      [2, -1],
      [2, 3],
      [2, 4],
    ]);
  });

  it('refuse new joiners once sold out, and still answer a ticket holder its ticket', async () => {
    await store.join('4', 'holder', Date.now(), null);
    await redis.hset('fs:{stock:4}:wr', 'soldOut', '1');
    const replies = await Promise.all(['new-1', 'holder', 'new-2'].map((user) => store.join('4', user, Date.now(), null)));
    expect(replies.map((r) => (r === 'sold-out' ? r : { number: r.number, soldOut: r.status.soldOut }))).toEqual(['sold-out', { number: 1, soldOut: true }, 'sold-out']);
  });
});
