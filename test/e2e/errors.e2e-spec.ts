import { AppHarness, startApp } from '../support/app-harness';

describe('error shape', () => {
  let harness: AppHarness;

  beforeAll(async () => {
    harness = await startApp();
  });
  afterAll(() => harness.close());

  const expectContractError = (body: string, statusCode: number, code: string) => {
    const parsed = JSON.parse(body);
    expect(parsed).toEqual({ statusCode, code, message: expect.any(String) });
    expect(body).not.toMatch(/\bat .+\.(ts|js):\d+/);
  };

  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const res = await harness.app.inject({ method: 'GET', url: '/no/such/route' });
    expect(res.statusCode).toBe(404);
    expectContractError(res.body, 404, 'NOT_FOUND');
  });

  it('answers malformed JSON with 400 VALIDATION_FAILED and no stack trace', async () => {
    const res = await harness.app.inject({ method: 'POST', url: '/health', headers: { 'content-type': 'application/json' }, payload: '{"quantity": ' });
    expect(res.statusCode).toBe(400);
    expectContractError(res.body, 400, 'VALIDATION_FAILED');
  });

  it('answers a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await harness.app.inject({ method: 'POST', url: '/health', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ pad: 'x'.repeat(2_000_000) }) });
    expect(res.statusCode).toBe(413);
    expectContractError(res.body, 413, 'PAYLOAD_TOO_LARGE');
  });
});
