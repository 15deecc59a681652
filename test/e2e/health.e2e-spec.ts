import { AppHarness, startApp } from '../support/app-harness';

describe('GET /health', () => {
  let harness: AppHarness;

  beforeAll(async () => {
    harness = await startApp();
  });
  afterAll(() => harness.close());

  it('answers 200 in Terminus format when Postgres and Redis answer', async () => {
    const res = await harness.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', details: { database: { status: 'up' }, redis: { status: 'up' } } });
  });

  it('answers 503 naming redis, with the contract fields, while Redis is down', async () => {
    await harness.redis.stop();
    try {
      const res = await harness.app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.json()).toMatchObject({ statusCode: 503, code: 'DEPENDENCY_UNAVAILABLE', status: 'error', error: { redis: { status: 'down' } } });
    } finally {
      await harness.redis.restart();
    }
  });
});
