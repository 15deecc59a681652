import { AddressInfo, createServer, Server, Socket } from 'node:net';

/**
 * How the proxy treats traffic: `pass` forwards; `latency` delays every chunk (both ways, order
 * kept) by `ms`; `reset` answers every connection, old and new, with a TCP RST; `blackhole`
 * accepts and reads but forwards nothing and never answers.
 */
export type ProxyMode = { kind: 'pass' } | { kind: 'latency'; ms: number } | { kind: 'reset' } | { kind: 'blackhole' };

/**
 * Called for each chunk the client sends: a number delays that chunk (and what follows) that much
 * longer; `'hold'` keeps it, and what follows on its connection, until `release()`.
 */
export type ClientTap = (chunk: Buffer, connection: number) => number | 'hold' | void;

interface Pair {
  id: number;
  client: Socket;
  upstream: Socket;
  /** Per direction: when the previous chunk leaves, so that delays never reorder bytes. */
  lastOut: { up: number; down: number };
  /** What the client sent since a tap said `'hold'`, in order; undefined when nothing is held. */
  held?: Buffer[];
  /** Called with the server's first bytes back after a release (or when the connection ends). */
  onAnswer?: () => void;
}

/** A small TCP proxy of our own, put between the API and Redis or Postgres to inject network faults. */
export class TcpProxy {
  private mode: ProxyMode = { kind: 'pass' };
  private readonly pairs = new Set<Pair>();
  private nextId = 1;
  tap?: ClientTap;
  /**
   * Extra delay of what the server sends back, in every mode but blackhole: the server has done
   * the work, the client hears of it late (a slow network, a stalled host).
   */
  replyDelayMs = 0;
  /** Connections accepted, connections reset, chunks dropped and server chunks delayed, since start. */
  readonly stats = {
    accepted: 0,
    reset: 0,
    chunksDropped: 0,
    repliesDelayed: 0,
    chunksDelayed: 0,
    /** The longest a held reply stayed in the proxy before it went on to the client. */
    longestReplyHoldMs: 0,
    /** Held replies whose client had gone (given up, closed) by the time they were due. */
    repliesLost: 0,
  };

  private constructor(
    private readonly server: Server,
    readonly upstreamPort: number,
  ) {}

  static async start(upstreamPort: number, upstreamHost = '127.0.0.1'): Promise<TcpProxy> {
    const server = createServer({ pauseOnConnect: false });
    const proxy = new TcpProxy(server, upstreamPort);
    server.on('connection', (client) => proxy.accept(client, upstreamHost));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get connections(): number {
    return this.pairs.size;
  }

  /**
   * Switches mode. Entering `reset` resets every open connection; leaving `blackhole` resets the
   * connections it swallowed bytes of (their protocol state is lost, as after a real outage).
   */
  setMode(mode: ProxyMode): void {
    const wasBlackhole = this.mode.kind === 'blackhole';
    this.mode = mode;
    if (mode.kind === 'reset' || (wasBlackhole && mode.kind !== 'blackhole')) this.resetAll();
  }

  /**
   * Sends on what a tap held back, and resolves once the server has answered it (its first bytes
   * back on that connection, or the connection's end): the held request has then been executed.
   */
  async release(): Promise<void> {
    const held = [...this.pairs].filter((pair) => pair.held);
    await Promise.all(
      held.map(
        (pair) =>
          new Promise<void>((resolve) => {
            pair.onAnswer = resolve;
            for (const chunk of pair.held!) pair.upstream.write(chunk);
            pair.held = undefined;
          }),
      ),
    );
  }

  resetAll(): void {
    for (const pair of [...this.pairs]) this.resetPair(pair);
  }

  async close(): Promise<void> {
    this.resetAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, upstreamHost: string): void {
    this.stats.accepted++;
    if (this.mode.kind === 'reset') {
      this.stats.reset++;
      client.resetAndDestroy();
      return;
    }
    const upstream = new Socket();
    const pair: Pair = { id: this.nextId++, client, upstream, lastOut: { up: 0, down: 0 } };
    this.pairs.add(pair);
    const drop = () => {
      pair.onAnswer?.();
      if (!this.pairs.delete(pair)) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    upstream.connect(this.upstreamPort, upstreamHost);
    client.on('data', (chunk: Buffer) => this.forward(pair, chunk, 'up'));
    upstream.on('data', (chunk: Buffer) => this.forward(pair, chunk, 'down'));
  }

  private forward(pair: Pair, chunk: Buffer, direction: 'up' | 'down'): void {
    if (this.mode.kind === 'blackhole') {
      this.stats.chunksDropped++;
      return;
    }
    if (direction === 'up' && pair.held) {
      pair.held.push(chunk);
      return;
    }
    if (direction === 'down' && pair.onAnswer) {
      pair.onAnswer();
      pair.onAnswer = undefined;
    }
    let delay = this.mode.kind === 'latency' ? this.mode.ms : 0;
    if (delay > 0) this.stats.chunksDelayed++;
    const heldReply = direction === 'down' && this.replyDelayMs > 0;
    if (heldReply) {
      delay += this.replyDelayMs;
      this.stats.repliesDelayed++;
    }
    const arrived = Date.now();
    const tapped = direction === 'up' && this.tap ? this.tap(chunk, pair.id) : undefined;
    if (tapped === 'hold') {
      pair.held = [chunk];
      return;
    }
    delay += tapped ?? 0;
    const target = direction === 'up' ? pair.upstream : pair.client;
    const due = Math.max(Date.now() + delay, pair.lastOut[direction]);
    pair.lastOut[direction] = due;
    const send = () => {
      if (heldReply) this.stats.longestReplyHoldMs = Math.max(this.stats.longestReplyHoldMs, Date.now() - arrived);
      if (this.pairs.has(pair) && !target.destroyed) target.write(chunk);
      else if (heldReply) this.stats.repliesLost++;
    };
    if (due <= Date.now()) send();
    else setTimeout(send, due - Date.now());
  }

  private resetPair(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    this.stats.reset++;
    if (!pair.client.destroyed) pair.client.resetAndDestroy();
    pair.upstream.destroy();
  }
}
