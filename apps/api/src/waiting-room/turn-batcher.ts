const MAX_PER_CALL = 256;

interface Pending<I, R> {
  items: I[];
  waiters: Array<{ resolve: (result: R) => void; reject: (error: unknown) => void }>;
}

/**
 * Requests gathered over one turn of the event loop and sent per group (a product's queue) by one
 * call, at most 256 at a time: under a sale thousands of buyers join and poll one product each
 * second, and a Redis round trip each would cost the API a command written and parsed per request
 * and Redis a script run each. `send` answers one result per item, in order.
 */
export class TurnBatcher<I, R> {
  private pending = new Map<string, Pending<I, R>>();

  constructor(private readonly send: (group: string, items: I[]) => Promise<R[]>) {}

  add(group: string, item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) setImmediate(() => this.flush());
      let entry = this.pending.get(group);
      if (!entry) this.pending.set(group, (entry = { items: [], waiters: [] }));
      entry.items.push(item);
      entry.waiters.push({ resolve, reject });
    });
  }

  private flush(): void {
    const all = this.pending;
    this.pending = new Map();
    for (const [group, { items, waiters }] of all) {
      for (let from = 0; from < items.length; from += MAX_PER_CALL) {
        const batch = waiters.slice(from, from + MAX_PER_CALL);
        let sent: Promise<R[]>;
        try {
          sent = this.send(group, items.slice(from, from + MAX_PER_CALL));
        } catch (error) {
          sent = Promise.reject(error);
        }
        sent.then(
          (results) =>
            batch.forEach((waiter, i) =>
              i < results.length
                ? waiter.resolve(results[i])
                : waiter.reject(new Error('the batch answered fewer results than it was sent')),
            ),
          (error: unknown) => batch.forEach((waiter) => waiter.reject(error)),
        );
      }
    }
  }
}
