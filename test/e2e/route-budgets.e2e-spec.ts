import type { InjectOptions } from 'fastify';
import { AppHarness, startApp } from '../support/app-harness';
import { pinRateWindow } from '../support/rate-clock';
import { adminAuth, auth } from '../support/tokens';

const BUDGET = 4;

/**
 * The read routes and the waiting room's routes each hold their own budget, shared by every
 * instance through Redis: GET /orders, GET /purchases/:id and joining a queue per user; a queue
 * poll per ticket; a queue's public summary and a product read per client address.
 */
describe('per-user and per-client budgets of the read and queue routes', () => {
  let harness: AppHarness;
  let productId: string;
  let unpin: () => void;

  beforeAll(async () => {
    harness = await startApp({
      RATE_LIMIT_PER_SECOND: String(BUDGET),
      QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: String(BUDGET),
      PUBLIC_READS_PER_SECOND_PER_ADDRESS: String(BUDGET),
      AUTH_FAILURES_PER_SECOND: '1000',
    });
    const created = await harness.app.inject({
      method: 'POST',
      url: '/admin/products',
      headers: adminAuth(),
      payload: { sku: 'BUDGET-1', name: 'Queued', priceCents: 100, stock: 5, waitingRoom: { admitPerSecond: 1 } },
    });
    expect(created.statusCode).toBe(201);
    productId = created.json().id;
  });
  afterAll(() => harness.close());
  // Each burst counts in one window, 20 ms into it, however long it takes.
  beforeEach(() => {
    unpin = pinRateWindow(harness.app, Math.floor(Date.now() / 1000) * 1000 + 20);
  });
  afterEach(() => unpin());

  /** `count` requests in sequence; their status codes. */
  async function statuses(request: InjectOptions, count: number): Promise<number[]> {
    const codes: number[] = [];
    for (let i = 0; i < count; i++) codes.push((await harness.app.inject(request)).statusCode);
    return codes;
  }

  async function expectLimited(request: InjectOptions, ok: number): Promise<void> {
    expect(await statuses(request, BUDGET)).toEqual(Array(BUDGET).fill(ok));
    const refused = await harness.app.inject(request);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }

  it('GET /orders: per user, so another user is unaffected', async () => {
    await expectLimited({ method: 'GET', url: '/orders?limit=500', headers: auth('lister') }, 200);
    expect((await harness.app.inject({ method: 'GET', url: '/orders', headers: auth('other-lister') })).statusCode).toBe(200);
  });

  it('GET /purchases/:id: per user, before any lookup', async () => {
    await expectLimited({ method: 'GET', url: '/purchases/no-such-purchase', headers: auth('asker') }, 404);
    expect((await harness.app.inject({ method: 'GET', url: '/purchases/no-such-purchase', headers: auth('other-asker') })).statusCode).toBe(404);
  });

  it('POST /products/:id/queue: per user', async () => {
    await expectLimited({ method: 'POST', url: `/products/${productId}/queue`, headers: auth('joiner') }, 200);
    expect((await harness.app.inject({ method: 'POST', url: `/products/${productId}/queue`, headers: auth('other-joiner') })).statusCode).toBe(200);
  });

  it('GET /products/:id/queue/:ticket: per ticket, so another holder keeps polling', async () => {
    const [mine, theirs] = await Promise.all(
      ['poller', 'other-poller'].map(async (user) => (await harness.app.inject({ method: 'POST', url: `/products/${productId}/queue`, headers: auth(user) })).json().ticket as string),
    );
    await expectLimited({ method: 'GET', url: `/products/${productId}/queue/${encodeURIComponent(mine)}` }, 200);
    expect((await harness.app.inject({ method: 'GET', url: `/products/${productId}/queue/${encodeURIComponent(theirs)}` })).statusCode).toBe(200);
    // A ticket that does not verify is refused as before (400), spending nobody's budget.
    expect(await statuses({ method: 'GET', url: `/products/${productId}/queue/forged` }, BUDGET + 2)).toEqual(Array(BUDGET + 2).fill(400));
  });

  it('GET /products/:id/queue: per client address', async () => {
    await expectLimited({ method: 'GET', url: `/products/${productId}/queue`, remoteAddress: '198.51.100.4' }, 200);
    expect((await harness.app.inject({ method: 'GET', url: `/products/${productId}/queue`, remoteAddress: '198.51.100.5' })).statusCode).toBe(200);
  });

  it('GET /products/:id: per client address, before any read, so another address is unaffected', async () => {
    await expectLimited({ method: 'GET', url: `/products/${productId}`, remoteAddress: '198.51.100.6' }, 200);
    // Ids that name nothing spend the same budget, and a refusal is never cached at the edge.
    const refused = await harness.app.inject({ method: 'GET', url: '/products/987654321', remoteAddress: '198.51.100.6' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect((await harness.app.inject({ method: 'GET', url: `/products/${productId}`, remoteAddress: '198.51.100.7' })).statusCode).toBe(200);
  });
});
