import type { RedisConnection } from '../common/redis/redis-client.factory';
import { PollBatcher } from './poll-batcher';
import { waitingRoomKeys } from './waiting-room-keys';

/** A stand-in client whose poll script answers place = 10 × ticket number for every ticket sent. */
function fakeRedis(fail = false) {
  const calls: Array<Array<string | number>> = [];
  const client = {
    defineCommand: () => undefined,
    waitingRoomPoll: (...args: Array<string | number>) => {
      calls.push(args);
      if (fail) return Promise.reject(new Error('Connection is closed.'));
      const numbers = args.slice(6).map(Number);
      return Promise.resolve([4, 20, 0, 0, '2', 'e1', ...numbers.flatMap((n) => [n * 10, 0, -1])]);
    },
  };
  return { client: client as unknown as RedisConnection, calls };
}

describe('PollBatcher', () => {
  it('reads the polls of one product arriving in one turn with one script call, each getting its own ticket', async () => {
    const { client, calls } = fakeRedis();
    const batcher = new PollBatcher(client);
    const keys = waitingRoomKeys('fs:', '42');
    const replies = await Promise.all([3, 1, 7].map((n) => batcher.poll('42', keys, n)));
    expect(calls).toHaveLength(1);
    expect(calls[0].slice(6)).toEqual([3, 1, 7]);
    expect(replies.map((r) => r.place)).toEqual([30, 10, 70]);
    expect(replies[0]).toMatchObject({ served: 4, seq: 20, rate: 2, epoch: 'e1', soldOut: false });
  });

  it('keeps products apart and hands a failure to every poll of the call', async () => {
    const { client, calls } = fakeRedis(true);
    const batcher = new PollBatcher(client);
    const results = await Promise.allSettled([batcher.poll('1', waitingRoomKeys('fs:', '1'), 1), batcher.poll('2', waitingRoomKeys('fs:', '2'), 1)]);
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => c[0])).toEqual(['fs:{stock:1}:wr', 'fs:{stock:2}:wr']);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
  });
});
