import { AppHarness, startApp } from '../support/app-harness';
import { pinRateWindow } from '../support/rate-clock';
import { adminAuth } from '../support/tokens';

const BUDGET = 4;

/**
 * The join-work challenge is public and asks for the sale's terms (and its seed, once): it holds
 * a budget per client address (QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS, a counter of its own),
 * spent before any of that work, so a refused request costs one counter hit.
 */
describe('GET /products/:id/queue/challenge budget', () => {
  let harness: AppHarness;
  let productId: string;
  let unpin: () => void;

  beforeAll(async () => {
    harness = await startApp({ QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: String(BUDGET) });
    const created = await harness.app.inject({
      method: 'POST',
      url: '/admin/products',
      headers: adminAuth(),
      payload: {
        sku: 'CHALLENGE-BUDGET-1',
        name: 'Guarded',
        priceCents: 100,
        stock: 5,
        waitingRoom: { joinWork: { squarings: 1000 } },
      },
    });
    expect(created.statusCode).toBe(201);
    productId = created.json().id;
  });
  afterAll(() => harness.close());
  // The burst counts in one window, 20 ms into it, however long it takes.
  beforeEach(() => {
    unpin = pinRateWindow(harness.app, Math.floor(Date.now() / 1000) * 1000 + 20);
  });
  afterEach(() => unpin());

  const challenge = (id: string, remoteAddress: string) =>
    harness.app.inject({ method: 'GET', url: `/products/${id}/queue/challenge`, remoteAddress });

  it('answers 429 RATE_LIMITED with Retry-After past the budget of an address, and another address is unaffected', async () => {
    const codes: number[] = [];
    for (let i = 0; i < BUDGET; i++) codes.push((await challenge(productId, '198.51.100.20')).statusCode);
    expect(codes).toEqual(Array(BUDGET).fill(200));
    const refused = await challenge(productId, '198.51.100.20');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Before any work: an unknown id is refused the same way, not looked up.
    expect((await challenge('987654321', '198.51.100.20')).statusCode).toBe(429);
    expect((await challenge(productId, '198.51.100.21')).statusCode).toBe(200);
  });
});
