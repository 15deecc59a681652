import http, { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** One header (`name` lower-case) without reading them all: SocketTransport's answers have it. */
  header?(name: string): string | undefined;
}

/** One header of an answer, its first value when it came as several. */
export function answerHeader(answer: HttpAnswer, name: string): string | undefined {
  if (answer.header) return answer.header(name);
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export class TransportError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/**
 * Where a client's requests come from: a local source address its sockets bind to (a loopback
 * target sees a distinct client per 127.x.y.z), or an X-Forwarded-For header (a remote target
 * behind a proxy it trusts).
 */
export interface ClientSource {
  localAddress?: string;
  forwardedFor?: string;
}

/**
 * Requests over keep-alive connections, at most `maxSockets` per origin, through Node's core client:
 * the admin calls, the stock reader and the waiting-room flows, whose populations bind their
 * sockets to a source address. The purchase load uses the leaner SocketTransport (driver.ts says
 * why); fetch cost about 1.1 ms per request here (docs/LOADTEST.md, "Why this load generator").
 */
export class HttpTransport {
  private readonly agents = new Map<string, http.Agent>();

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

  private send(
    method: 'GET' | 'POST',
    url: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<HttpAnswer> {
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    if (this.source.forwardedFor) headers = { ...headers, 'x-forwarded-for': this.source.forwardedFor };
    return new Promise((resolve, reject) => {
      const request = client.request(
        target,
        {
          method,
          agent: this.agentFor(target),
          headers: method === 'GET' ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', (error: NodeJS.ErrnoException) =>
            reject(new TransportError(error.code ?? 'RESPONSE_ERROR')),
          );
        },
      );
      const timer = setTimeout(() => request.destroy(new TransportError('TIMEOUT')), this.timeoutMs);
      request.on('close', () => clearTimeout(timer));
      request.on('error', (error: NodeJS.ErrnoException) =>
        reject(error instanceof TransportError ? error : new TransportError(error.code ?? error.name)),
      );
      request.end(body);
    });
  }

  /** Closes the idle keep-alive sockets so that a library caller's process can exit. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private agentFor(target: URL): http.Agent {
    let agent = this.agents.get(target.origin);
    if (!agent) {
      const options: http.AgentOptions = { keepAlive: true, maxSockets: this.maxSockets };
      // An IPv4 source address needs an IPv4 socket, also when `localhost` would resolve to ::1.
      if (this.source.localAddress) Object.assign(options, { localAddress: this.source.localAddress, family: 4 });
      agent = target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      this.agents.set(target.origin, agent);
    }
    return agent;
  }
}

/** What the drivers send through: node:http's HttpTransport or the purchase path's SocketTransport. */
export type Transport = Pick<HttpTransport, 'post' | 'get' | 'close'>;

/** An answer's body as a JSON object; {} for anything else (an empty body, HTML, a bare value). */
export function parseBody(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
