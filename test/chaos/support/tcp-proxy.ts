import { AddressInfo, createServer, Server, Socket } from 'node:net';

/**
 * How the proxy treats traffic: `pass` forwards; `latency` delays every chunk (both ways, order
 * kept) by `ms`; `reset` answers every connection, old and new, with a TCP RST; `blackhole`
 * accepts and reads but forwards nothing and never answers.
 */
export type ProxyMode = { kind: 'pass' } | { kind: 'latency'; ms: number } | { kind: 'reset' } | { kind: 'blackhole' };

/** Called for each chunk the client sends; a number holds that chunk (and what follows) that much longer. */
export type ClientTap = (chunk: Buffer, connection: number) => number | void;

interface Pair {
  id: number;
  client: Socket;
  upstream: Socket;
  /** Per direction: when the previous chunk leaves, so that delays never reorder bytes. */
  lastOut: { up: number; down: number };
}

/** A small TCP proxy of our own, put between the API and Redis or Postgres to inject network faults. */
export class TcpProxy {
  private mode: ProxyMode = { kind: 'pass' };
  private readonly pairs = new Set<Pair>();
  private nextId = 1;
  tap?: ClientTap;
  /** Connections accepted, and connections reset, since start. */
  readonly stats = { accepted: 0, reset: 0, chunksDropped: 0 };

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
    let delay = this.mode.kind === 'latency' ? this.mode.ms : 0;
    if (direction === 'up' && this.tap) delay += this.tap(chunk, pair.id) ?? 0;
    const target = direction === 'up' ? pair.upstream : pair.client;
    const due = Math.max(Date.now() + delay, pair.lastOut[direction]);
    pair.lastOut[direction] = due;
    const send = () => {
      if (this.pairs.has(pair) && !target.destroyed) target.write(chunk);
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
