import { ClientSource, HttpAnswer, HttpTransport } from './http-transport';

/** A cap on requests in flight, shared by the transports of many clients (one per client address). */
export class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async through<T>(send: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await send();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` counts it still.
      if (next) next();
      else this.active--;
    }
  }
}

/**
 * At most `limit` requests in flight; the rest wait their turn here, in order, before their
 * timeout starts. Thousands of waiting-room buyers share a few sockets: queued in the agent
 * instead, a request's timeout would run while it waited for a socket, and a slow start would
 * read as server timeouts.
 */
export class GatedTransport extends HttpTransport {
  private readonly gate: Gate;

  /** `limit`: a cap of its own, or a Gate shared with other clients' transports. */
  constructor(limit: number | Gate, maxSockets: number, timeoutMs: number, source?: ClientSource) {
    super(maxSockets, timeoutMs, source);
    this.gate = typeof limit === 'number' ? new Gate(limit) : limit;
  }

  override post(url: string, headers: Record<string, string>, body: string): Promise<HttpAnswer> {
    // An admitted buyer's purchase skips the line: a real buyer has a connection of their own, and
    // its latency (timed from here) should be the server's, not the pollers' queue. Admissions,
    // and so these purchases, are bounded by the stock.
    if (headers.admission) return super.post(url, headers, body);
    return this.gate.through(() => super.post(url, headers, body));
  }

  override get(url: string, headers: Record<string, string>): Promise<HttpAnswer> {
    return this.gate.through(() => super.get(url, headers));
  }
}
