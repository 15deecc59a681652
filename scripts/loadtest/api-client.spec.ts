import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ApiClient, ApiError } from './api-client';

/**
 * The audit pages through GET /orders as an admin, and a production instance budgets that listing
 * like anyone's: the tool must wait out a 429's Retry-After rather than fail the whole run.
 */
describe('the load test API client', () => {
  let server: Server;
  let url: string;
  let refusalsLeft: number;
  let requests: number;

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      if (refusalsLeft > 0) {
        refusalsLeft--;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
        return res.end(JSON.stringify({ statusCode: 429, code: 'RATE_LIMITED', message: 'slow down' }));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          items: [{ id: '1', productId: '7', userId: 'u', quantity: 1, status: 'PAID' }],
          nextCursor: null,
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    requests = 0;
  });

  it('waits out each Retry-After (never less) and then gets its answer', async () => {
    refusalsLeft = 2;
    const waits: number[] = [];
    const client = new ApiClient(url, 'token', 5000, 60_000, async (ms) => void waits.push(ms));
    const orders = await client.listOrders('7');
    expect(orders.map((o) => o.id)).toEqual(['1']);
    expect(requests).toBe(3);
    expect(waits).toHaveLength(2);
    for (const ms of waits) {
      expect(ms).toBeGreaterThanOrEqual(2000);
      expect(ms).toBeLessThanOrEqual(2400);
    }
  });

  it('gives up with the refusal once its waiting budget is spent', async () => {
    refusalsLeft = 1_000;
    const waits: number[] = [];
    const client = new ApiClient(url, 'token', 5000, 7_000, async (ms) => void waits.push(ms));
    const failure = await client.listOrders('7').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(429);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(7_000);
    expect(requests).toBe(waits.length + 1);
  });
});
