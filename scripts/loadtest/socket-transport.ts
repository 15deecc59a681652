import net from 'node:net';
import tls from 'node:tls';
import { ClientSource, HttpAnswer, TransportError } from './http-transport';
import { ResponseParser } from './response-parser';

interface Pending {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body: string;
  resolve: (answer: HttpAnswer) => void;
  reject: (error: TransportError) => void;
}

interface Target {
  pool: OriginPool;
  path: string;
}

/** Parsed request targets kept for reuse: a run sends thousands of requests to a handful of URLs. */
const MAX_CACHED_TARGETS = 1024;

/**
 * HTTP/1.1 over keep-alive sockets written and read by hand, at most `maxSockets` per origin: one
 * request per socket at a time (no pipelining), answers framed by Content-Length, chunks or the
 * socket's end. The purchase path's client: it does a third of the work of node:http's Agent per
 * request (docs/LOADTEST.md, "Why this load generator"), and the generator shares the machine with
 * the servers it measures.
 */
export class SocketTransport {
  private readonly pools = new Map<string, OriginPool>();
  private readonly targets = new Map<string, Target>();

  constructor(
    private readonly maxSockets: number,
    private readonly timeoutMs: number,
    private readonly source: ClientSource = {},
  ) {}

  post(url: string, headers: Record<string, string>, body: string): Promise<HttpAnswer> {
    return this.send('POST', url, headers, body);
  }

  get(url: string, headers: Record<string, string>): Promise<HttpAnswer> {
    return this.send('GET', url, headers, '');
  }

  /** Ends every socket; requests still waiting for one fail. */
  close(): void {
    for (const pool of this.pools.values()) pool.close();
    this.pools.clear();
    this.targets.clear();
  }

  private send(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body: string) {
    const { pool, path } = this.targetOf(url);
    if (this.source.forwardedFor) headers = { ...headers, 'x-forwarded-for': this.source.forwardedFor };
    return new Promise<HttpAnswer>((resolve, reject) => pool.send({ method, path, headers, body, resolve, reject }));
  }

  private targetOf(url: string): Target {
    let target = this.targets.get(url);
    if (target) return target;
    const parsed = new URL(url);
    let pool = this.pools.get(parsed.origin);
    if (!pool) {
      pool = new OriginPool(parsed, this.maxSockets, this.timeoutMs, this.source);
      this.pools.set(parsed.origin, pool);
    }
    if (this.targets.size >= MAX_CACHED_TARGETS) this.targets.clear();
    target = { pool, path: `${parsed.pathname}${parsed.search}` };
    this.targets.set(url, target);
    return target;
  }
}

/** The sockets to one origin: idle ones reused first, new ones opened up to the cap, then a line. */
class OriginPool {
  private readonly idle: Connection[] = [];
  private readonly waiting: Pending[] = [];
  private readonly open = new Set<Connection>();
  private readonly host: string;
  private readonly port: number;

  constructor(
    private readonly origin: URL,
    private readonly maxSockets: number,
    private readonly timeoutMs: number,
    private readonly source: ClientSource,
  ) {
    this.host = origin.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80);
  }

  send(request: Pending): void {
    const connection = this.idle.pop() ?? (this.open.size < this.maxSockets ? this.connect() : undefined);
    if (connection) connection.run(request);
    else this.waiting.push(request);
  }

  close(): void {
    for (const connection of this.open) connection.destroy();
    for (const request of this.waiting.splice(0)) request.reject(new TransportError('CLOSED'));
  }

  /** A connection is free again: the next in line gets it, else it waits idle. */
  released(connection: Connection): void {
    const next = this.waiting.shift();
    if (next) connection.run(next);
    else this.idle.push(connection);
  }

  /** A connection is gone: a waiting request gets a fresh one in its place. */
  lost(connection: Connection): void {
    this.open.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    const next = this.waiting.shift();
    if (next) this.connect().run(next);
  }

  private connect(): Connection {
    const options = {
      host: this.host,
      port: this.port,
      // An IPv4 source address needs an IPv4 socket, also when `localhost` would resolve to ::1.
      ...(this.source.localAddress ? { localAddress: this.source.localAddress, family: 4 } : {}),
    };
    const socket =
      this.origin.protocol === 'https:'
        ? tls.connect({ ...options, servername: net.isIP(this.host) ? undefined : this.host })
        : net.connect(options);
    const connection = new Connection(socket, this.origin.host, this.timeoutMs, this);
    this.open.add(connection);
    return connection;
  }
}

/** One keep-alive socket and the one request it carries at a time. */
class Connection {
  private current?: Pending;
  private timer?: NodeJS.Timeout;
  private readonly parser = new ResponseParser();
  private gone = false;

  constructor(
    private readonly socket: net.Socket,
    private readonly hostHeader: string,
    private readonly timeoutMs: number,
    private readonly pool: OriginPool,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    socket.on('error', (error: NodeJS.ErrnoException) => this.fail(error.code ?? error.name));
    socket.on('close', () => this.fail('ECONNRESET'));
  }

  run(request: Pending): void {
    this.current = request;
    this.timer = setTimeout(() => this.fail('TIMEOUT'), this.timeoutMs);
    let head = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\n`;
    for (const name in request.headers) head += `${name}: ${request.headers[name]}\r\n`;
    if (request.method === 'POST') head += `content-length: ${Buffer.byteLength(request.body)}\r\n`;
    this.socket.write(`${head}\r\n${request.body}`);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (!this.current) return this.fail('UNEXPECTED_DATA');
    const state = this.parser.push(chunk);
    if (state === 'error') return this.fail('HPE_INVALID_RESPONSE');
    if (state === 'done') this.complete();
  }

  /** The server closed its side: an answer framed by the socket's end is complete now. */
  private onEnd(): void {
    if (this.current && this.parser.endOfStream() === 'done') this.complete();
    else this.fail('ECONNRESET');
  }

  private complete(): void {
    const request = this.current as Pending;
    clearTimeout(this.timer);
    this.current = undefined;
    const answer = this.parser.takeAnswer();
    if (answer.keepAlive && !this.gone) this.pool.released(this);
    else this.drop();
    request.resolve(answer);
  }

  private fail(code: string): void {
    const request = this.current;
    this.current = undefined;
    clearTimeout(this.timer);
    this.drop();
    request?.reject(new TransportError(code));
  }

  private drop(): void {
    if (this.gone) return;
    this.gone = true;
    this.socket.destroy();
    this.pool.lost(this);
  }
}
