import { Agent, request } from 'node:http';

export interface JsonAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  retryAfterS?: number;
  /** The `Purchase-Id` header of a purchase's answer. */
  purchaseId?: string;
}

/**
 * A keep-alive HTTP client for one instance, with a bounded pool of sockets: tens of thousands of
 * simulated buyers share a few connections, as they would share a balancer's.
 */
export class InstanceClient {
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    maxSockets = 48,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  send<T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, body?: unknown): Promise<JsonAnswer<T>> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const url = new URL(path, this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        { method, agent: this.agent, headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text ? JSON.parse(text) : {};
            } catch {
              parsed = { raw: text };
            }
            const retryAfter = res.headers['retry-after'];
            const purchaseId = res.headers['purchase-id'];
            resolve({ status: res.statusCode ?? 0, body: parsed as T, retryAfterS: retryAfter === undefined ? undefined : Number(retryAfter), purchaseId: typeof purchaseId === 'string' ? purchaseId : undefined });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
