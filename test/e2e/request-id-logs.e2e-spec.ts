import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiProcess } from '../../scripts/infra/api-process';
import { TEST_JWT_SECRET } from '../support/app-harness';
import { freePort } from '../support/free-port';
import { RedisServerProcess } from '../support/redis-server';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { testOutputDir } from '../support/test-output';
import { adminAuth, auth } from '../support/tokens';

interface LogLine {
  msg?: string;
  req?: { id?: unknown; url?: string };
  res?: { statusCode?: number };
}

/** The built app's JSON logs: the request id a response carries is the one its log lines carry. */
describe('X-Request-Id in the logs', () => {
  let redis: RedisServerProcess;
  let database: TestDatabase;
  let api: ApiProcess;
  const logFile = join(testOutputDir('request-id'), 'api.log');

  beforeAll(async () => {
    if (!existsSync('dist/apps/api/main.js')) throw new Error('build first: npm run build (npm test does it)');
    [redis, database] = await Promise.all([RedisServerProcess.start(), createTestDatabase()]);
    const env = { NODE_ENV: 'test', LOG_LEVEL: 'debug', DATABASE_URL: database.url, REDIS_URL: redis.url, JWT_SECRET: TEST_JWT_SECRET };
    api = new ApiProcess({ port: await freePort(), env, logFile });
    await api.start(60_000);
  }, 90_000);

  afterAll(async () => {
    await api?.stop();
    await redis?.stop();
    await database?.drop();
  });

  const logLines = (): LogLine[] =>
    readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);

  /** Polls until the request's completion is logged (pino writes asynchronously). */
  async function completionLogOf(id: string): Promise<LogLine> {
    for (;;) {
      const line = logLines().find((entry) => entry.req?.id === id && entry.res?.statusCode !== undefined);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('logs a request under the X-Request-Id its caller sent', async () => {
    const res = await fetch(`${api.url}/products/424242`, { headers: { 'x-request-id': 'checkout-7f3a9' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('checkout-7f3a9');
    await expect(completionLogOf('checkout-7f3a9')).resolves.toMatchObject({ req: { url: '/products/424242' }, res: { statusCode: 404 } });
  }, 30_000);

  it('logs a request without one under the id generated for its response', async () => {
    const res = await fetch(`${api.url}/orders`);
    expect(res.status).toBe(401);
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await expect(completionLogOf(id)).resolves.toMatchObject({ req: { url: '/orders' }, res: { statusCode: 401 } });
  }, 30_000);

  it('never logs a request line without its string id, nor a rejected caller id', async () => {
    const rejected = 'two ids, joined';
    const res = await fetch(`${api.url}/health`, { headers: { 'x-request-id': rejected } });
    await completionLogOf(res.headers.get('x-request-id')!);
    const requestLines = logLines().filter((line) => line.req !== undefined);
    expect(requestLines.length).toBeGreaterThanOrEqual(3);
    for (const line of requestLines) expect(typeof line.req!.id).toBe('string');
    expect(readFileSync(logFile, 'utf8')).not.toContain(rejected);
  }, 30_000);

  it('keeps queue tickets, the credential of a place, out of every log line', async () => {
    const created = await fetch(`${api.url}/admin/products`, {
      method: 'POST',
      headers: { ...adminAuth(), 'content-type': 'application/json' },
      body: JSON.stringify({ sku: 'LOGGED-QUEUE', name: 'queued', priceCents: 100, stock: 5, waitingRoom: { admitPerSecond: 1 } }),
    });
    const productId = ((await created.json()) as { id: string }).id;
    const joined = await fetch(`${api.url}/products/${productId}/queue`, { method: 'POST', headers: auth('logged-buyer') });
    const { ticket } = (await joined.json()) as { ticket: string };
    // A poll (200, logged at debug here) and the same ticket against another product (400, logged at info).
    const polled = await fetch(`${api.url}/products/${productId}/queue/${encodeURIComponent(ticket)}?from=page`, { headers: { 'x-request-id': 'poll-mine' } });
    const misplaced = await fetch(`${api.url}/products/424242/queue/${encodeURIComponent(ticket)}`, { headers: { 'x-request-id': 'poll-elsewhere' } });
    expect([polled.status, misplaced.status]).toEqual([200, 400]);
    await expect(completionLogOf('poll-mine')).resolves.toMatchObject({ req: { url: `/products/${productId}/queue/[redacted]?from=page` }, res: { statusCode: 200 } });
    await expect(completionLogOf('poll-elsewhere')).resolves.toMatchObject({ req: { url: '/products/424242/queue/[redacted]' }, res: { statusCode: 400 } });
    const log = readFileSync(logFile, 'utf8');
    expect(log).not.toContain(ticket);
    expect(log).not.toContain(encodeURIComponent(ticket));
  }, 30_000);

  it('keeps a ticket out of the log at URLs that match no route, or put where no ticket belongs', async () => {
    const created = await fetch(`${api.url}/admin/products`, {
      method: 'POST',
      headers: { ...adminAuth(), 'content-type': 'application/json' },
      body: JSON.stringify({ sku: 'LOGGED-ODD-URLS', name: 'queued', priceCents: 100, stock: 5, waitingRoom: { admitPerSecond: 1 } }),
    });
    const productId = ((await created.json()) as { id: string }).id;
    const joined = await fetch(`${api.url}/products/${productId}/queue`, { method: 'POST', headers: auth('odd-url-buyer') });
    const { ticket } = (await joined.json()) as { ticket: string };
    const dotsEncoded = ticket.replace(/\./g, '%2E');
    const odd = [
      `/products/${productId}/queue/${ticket}/`,
      `/products/${productId}/queue/${ticket}/status`,
      `/products/${productId}/queue//${ticket}`,
      `/products/${productId}/queue/${dotsEncoded}/`,
      `/products/${productId}?ticket=${ticket}`,
      `/products/${productId}/queue?ticket=${dotsEncoded}`,
      `/no/such/route/${ticket}`,
    ];
    for (const [i, path] of odd.entries()) {
      const res = await fetch(`${api.url}${path}`, { headers: { 'x-request-id': `odd-url-${i}` } });
      expect(`${path}: ${res.status}`).not.toMatch(/: 5\d\d$/);
      await completionLogOf(`odd-url-${i}`);
    }
    const log = readFileSync(logFile, 'utf8');
    // The signature is the secret part: not even it alone may be in the log.
    const signature = ticket.slice(ticket.lastIndexOf('.') + 1);
    for (const form of [ticket, dotsEncoded, signature]) expect(log).not.toContain(form);
    expect((await completionLogOf('odd-url-0')).req?.url).toBe(`/products/${productId}/queue/[redacted]`);
  }, 30_000);
});
