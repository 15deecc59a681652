import { AppHarness, startApp } from '../support/app-harness';
import { pinRateWindow } from '../support/rate-clock';
import { auth, bearer, forgedToken } from '../support/tokens';

const BUDGET = 5;

async function burst(harness: AppHarness, count: number, headers: Record<string, string>, remoteAddress = '203.0.113.7') {
  return Promise.all(Array.from({ length: count }, () => harness.app.inject({ method: 'GET', url: '/orders', headers, remoteAddress })));
}

describe('requests with a missing or bad token, limited per client address', () => {
  describe('without TRUST_PROXY', () => {
    let harness: AppHarness;
    beforeAll(async () => {
      harness = await startApp({ AUTH_FAILURES_PER_SECOND: String(BUDGET) });
    });
    afterAll(() => harness.close());

    it('answers 429 RATE_LIMITED with Retry-After once an address spends its budget, then 401 again', async () => {
      // The whole burst counts in one window, 20 ms into it, however long it takes.
      const windowStart = Math.floor(Date.now() / 1000) * 1000;
      let unpin = pinRateWindow(windowStart + 20);
      try {
        const answers = await burst(harness, 3 * BUDGET, bearer(forgedToken()));
        const statuses = answers.map((a) => a.statusCode);
        expect(statuses.filter((s) => s === 401)).toHaveLength(BUDGET);
        expect(statuses.filter((s) => s === 429)).toHaveLength(2 * BUDGET);
        const limited = answers.find((a) => a.statusCode === 429)!;
        expect(limited.json()).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
        expect(Number(limited.headers['retry-after'])).toBe(1); // 980 ms of the window left
        // The next window brings a fresh budget.
        unpin();
        unpin = pinRateWindow(windowStart + 1000);
        expect((await burst(harness, 1, {}))[0].statusCode).toBe(401);
      } finally {
        unpin();
      }
    });

    it('does not spend the budget of a caller with a valid token, nor of another address', async () => {
      await burst(harness, 3 * BUDGET, {}, '198.51.100.1');
      expect((await burst(harness, 1, auth('good-user'), '198.51.100.1'))[0].statusCode).toBe(200);
      expect((await burst(harness, 1, {}, '198.51.100.2'))[0].statusCode).toBe(401);
    });

    it('ignores X-Forwarded-For from a client it does not trust', async () => {
      const unpin = pinRateWindow(); // one window for the whole burst
      try {
        const answers = await Promise.all(
          Array.from({ length: 3 * BUDGET }, (_, i) => harness.app.inject({ method: 'GET', url: '/orders', remoteAddress: '192.0.2.50', headers: { 'x-forwarded-for': `10.9.0.${i}` } })),
        );
        expect(answers.filter((a) => a.statusCode === 429)).toHaveLength(2 * BUDGET);
      } finally {
        unpin();
      }
    });
  });

  describe('behind a trusted balancer (TRUST_PROXY=loopback)', () => {
    let harness: AppHarness;
    beforeAll(async () => {
      harness = await startApp({ AUTH_FAILURES_PER_SECOND: String(BUDGET), TRUST_PROXY: 'loopback' });
    });
    afterAll(() => harness.close());

    it('counts each forwarded client address on its own', async () => {
      const answers = await Promise.all(
        Array.from({ length: 3 * BUDGET }, (_, i) => harness.app.inject({ method: 'GET', url: '/orders', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': `10.8.0.${i}` } })),
      );
      expect(answers.every((a) => a.statusCode === 401)).toBe(true);
    });
  });
});
