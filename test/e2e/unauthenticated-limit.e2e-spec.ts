import { AppHarness, startApp } from '../support/app-harness';
import { pinRateWindow } from '../support/rate-clock';
import { adminAuth, auth, bearer, forgedToken } from '../support/tokens';

const BUDGET = 5;

/** Signature checks the instance has run so far (its /metrics: auth_token_checks_total, both results). */
async function signatureChecks(harness: AppHarness): Promise<number> {
  const text = (await harness.app.inject({ method: 'GET', url: '/metrics' })).body;
  return [...text.matchAll(/^auth_token_checks_total\{[^}]*\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

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
      let unpin = pinRateWindow(harness.app, windowStart + 20);
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
        unpin = pinRateWindow(harness.app, windowStart + 1000);
        expect((await burst(harness, 1, {}))[0].statusCode).toBe(401);
      } finally {
        unpin();
      }
    });

    it('does not spend the budget of a caller with a valid token, nor of another address', async () => {
      const windowStart = Math.floor(Date.now() / 1000) * 1000;
      let unpin = pinRateWindow(harness.app, windowStart + 20);
      try {
        const verified = auth('good-user');
        expect((await burst(harness, 1, verified, '198.51.100.1'))[0].statusCode).toBe(200);
        await burst(harness, 3 * BUDGET, {}, '198.51.100.1');
        // A token this instance verified before still passes; nothing is checked for it.
        expect((await burst(harness, 1, verified, '198.51.100.1'))[0].statusCode).toBe(200);
        expect((await burst(harness, 1, {}, '198.51.100.2'))[0].statusCode).toBe(401);
        // A token never seen waits for the next window: the budget is checked before any signature is.
        const unseen = auth('new-user');
        expect((await burst(harness, 1, unseen, '198.51.100.1'))[0].statusCode).toBe(429);
        unpin();
        unpin = pinRateWindow(harness.app, windowStart + 1000);
        expect((await burst(harness, 1, unseen, '198.51.100.1'))[0].statusCode).toBe(200);
      } finally {
        unpin();
      }
    });

    it('checks the budget before a signature: past it, a bad token is answered 429 without being checked', async () => {
      const unpin = pinRateWindow(harness.app); // one window for the whole run
      try {
        const before = await signatureChecks(harness);
        const statuses: number[] = [];
        // Sent one after another, each a token never seen (nothing remembered), as a guesser would.
        for (let i = 0; i < 6 * BUDGET; i++) statuses.push((await burst(harness, 1, bearer(forgedToken(`guess-${i}`)), '192.0.2.77'))[0].statusCode);
        expect(statuses.filter((s) => s === 401)).toHaveLength(BUDGET);
        expect(statuses.filter((s) => s === 429)).toHaveLength(5 * BUDGET);
        // One check per token within the budget, one more for the token that found it spent; none after.
        expect((await signatureChecks(harness)) - before).toBe(BUDGET + 1);
      } finally {
        unpin();
      }
    });

    it('checks each token at most once: a bad token sent again, or through the queue-join shortcut and then the guard', async () => {
      const created = await harness.app.inject({ method: 'POST', url: '/admin/products', headers: adminAuth(), payload: { sku: 'ONE-CHECK', name: 'Queued', priceCents: 100, stock: 5, waitingRoom: { admitPerSecond: 1 } } });
      const product = created.json<{ id: string }>();
      const bad = forgedToken('replayed-guess');
      const before = await signatureChecks(harness);
      expect((await burst(harness, 1, bearer(bad), '198.51.100.31'))[0].statusCode).toBe(401);
      expect((await burst(harness, 1, bearer(bad), '198.51.100.32'))[0].statusCode).toBe(401);
      const join = await harness.app.inject({ method: 'POST', url: `/products/${product.id}/queue`, headers: bearer(forgedToken('joining-guess')), remoteAddress: '198.51.100.33' });
      expect(join.statusCode).toBe(401);
      expect((await signatureChecks(harness)) - before).toBe(2);
    });

    it('ignores X-Forwarded-For from a client it does not trust', async () => {
      const unpin = pinRateWindow(harness.app); // one window for the whole burst
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
