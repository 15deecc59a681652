import { PurchaseService } from '../../apps/api/src/orders/purchase.service';
import { Api, injectSender } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { auth } from '../support/tokens';

/**
 * Once a product is sold out, plain refusals are answered before the Nest pipeline. These specs
 * pin that the shortcut never answers differently from the pipeline it skips.
 */
describe('sold-out shortcut', () => {
  let harness: AppHarness;
  let api: Api;
  let productId: string;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '1000' });
    api = new Api(injectSender(harness.app));
    productId = (await api.createProduct({ stock: 1, perUserLimit: 3 })).id;
    expect((await api.purchase(productId, 'first', { idempotencyKey: 'first-key' })).status).toBe(201);
    expect((await api.purchase(productId, 'second')).status).toBe(409); // the process has now seen it sold out
  });
  afterAll(() => harness.close());

  const purchase = (payload: unknown, headers: Record<string, string>) =>
    harness.app.inject({ method: 'POST', url: `/products/${productId}/purchase`, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });

  it('refuses a plain purchase with 409 SOLD_OUT in the contract shape, without reaching the purchase service', async () => {
    // The process trusts what it saw for 250 ms, read from Date.now at each request: with the clock
    // stopped, the warm-up either finds that memory valid or renews it (from the Redis flag), and a
    // stall before the next request cannot let it lapse.
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
    let service: jest.SpyInstance | undefined;
    try {
      await purchase({ quantity: 1 }, auth('warm-up'));
      service = jest.spyOn(harness.app.get(PurchaseService), 'purchase');
      const res = await purchase({ quantity: 1 }, auth('buyer'));
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ statusCode: 409, code: 'SOLD_OUT', message: expect.any(String) });
      expect(service).not.toHaveBeenCalled();
    } finally {
      service?.mockRestore();
      clock.mockRestore();
    }
  });

  it('still answers 401 to a missing or forged token', async () => {
    expect((await purchase({ quantity: 1 }, {})).statusCode).toBe(401);
    expect((await purchase({ quantity: 1 }, { authorization: 'Bearer a.b.c' })).statusCode).toBe(401);
  });

  it('still answers 400 to a malformed body', async () => {
    for (const body of [{ quantity: 'one' }, { quantity: 1, extra: true }, { quantity: 0 }, null]) {
      const res = await purchase(body, auth('buyer'));
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
  });

  it('lets a replayed Idempotency-Key through to get its first answer', async () => {
    const res = await purchase({ quantity: 1 }, { ...auth('first'), 'idempotency-key': 'first-key' });
    expect(res.statusCode).toBe(201);
  });

  it('answers a request for more than the per-user limit with PER_USER_LIMIT, as the pipeline does', async () => {
    const res = await purchase({ quantity: 4 }, auth('buyer'));
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('PER_USER_LIMIT');
  });
});
