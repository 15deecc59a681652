import { AppHarness, startApp } from '../support/app-harness';

describe('GET /health and /health/details (development: both on the public port)', () => {
  let harness: AppHarness;

  beforeAll(async () => {
    harness = await startApp();
  });
  afterAll(() => harness.close());

  it('answers 200 {"status":"ok"} and nothing more when Postgres and Redis answer', async () => {
    const res = await harness.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('keeps the Terminus detail for /health/details', async () => {
    const res = await harness.app.inject({ method: 'GET', url: '/health/details' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', details: { database: { status: 'up' }, redis: { status: 'up' } } });
  });

  it('answers 503 {"status":"error"} while Redis is down, with no address or error text; the details name redis', async () => {
    await harness.redis.stop();
    try {
      const res = await harness.app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'error' });
      expect(res.body).not.toContain(String(harness.redis.port));
      const details = await harness.app.inject({ method: 'GET', url: '/health/details' });
      expect(details.statusCode).toBe(503);
      expect(details.json()).toMatchObject({ status: 'error', error: { redis: { status: 'down' } } });
    } finally {
      await harness.redis.restart();
    }
  });

  it('answers /health/live 200 while a dependency is down', async () => {
    await harness.redis.stop();
    try {
      const res = await harness.app.inject({ method: 'GET', url: '/health/live' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    } finally {
      await harness.redis.restart();
    }
  });
});
