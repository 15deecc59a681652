import { ShutdownState } from '../../apps/api/src/common/shutdown-gate';
import { AppHarness, startApp } from '../support/app-harness';

describe('graceful shutdown', () => {
  let harness: AppHarness;

  beforeAll(async () => {
    harness = await startApp();
  });
  afterAll(() => harness.close());

  it('refuses requests that arrive while draining with the contract 503, Retry-After and Connection: close', async () => {
    const state = harness.app.get(ShutdownState);
    state.onModuleDestroy();
    try {
      const res = await harness.app.inject({ method: 'GET', url: '/products/1' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ statusCode: 503, code: 'DEPENDENCY_UNAVAILABLE', message: expect.any(String) });
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers.connection).toBe('close');
    } finally {
      state.closing = false;
    }
    expect((await harness.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
  });
});
