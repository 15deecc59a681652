import type { RedisConnection } from '../common/redis/redis-client.factory';
import { parsePolls, POLL, PollReply } from './scripts/poll';
import { runScript } from './scripts/script';
import { WaitingRoomKeys } from './waiting-room-keys';

const MAX_PER_CALL = 256;

interface Pending {
  keys: WaitingRoomKeys;
  numbers: number[];
  waiters: Array<{ resolve: (reply: PollReply) => void; reject: (error: unknown) => void }>;
}

/**
 * Polls gathered over one turn of the event loop and read per product by one script call: under
 * a sale thousands of buyers poll one product each second, and a round trip per poll cost the API
 * a command written and parsed each (the rate counters' batching, applied to the queue).
 */
export class PollBatcher {
  private pending = new Map<string, Pending>();

  constructor(private readonly redis: RedisConnection) {}

  poll(productId: string, keys: WaitingRoomKeys, ticketNumber: number): Promise<PollReply> {
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) setImmediate(() => this.flush());
      let entry = this.pending.get(productId);
      if (!entry) this.pending.set(productId, (entry = { keys, numbers: [], waiters: [] }));
      entry.numbers.push(ticketNumber);
      entry.waiters.push({ resolve, reject });
    });
  }

  private flush(): void {
    const all = this.pending;
    this.pending = new Map();
    for (const { keys, numbers, waiters } of all.values()) {
      for (let from = 0; from < numbers.length; from += MAX_PER_CALL) {
        const batch = waiters.slice(from, from + MAX_PER_CALL);
        runScript(this.redis, POLL, [keys.meta, keys.ranks, keys.admitted, keys.bought, keys.soldOutFlag, keys.buying], numbers.slice(from, from + MAX_PER_CALL)).then(
          (reply) => parsePolls(reply).forEach((poll, i) => batch[i].resolve(poll)),
          (error: unknown) => batch.forEach((waiter) => waiter.reject(error)),
        );
      }
    }
  }
}
