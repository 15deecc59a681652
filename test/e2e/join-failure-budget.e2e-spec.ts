import { AppHarness, startApp } from '../support/app-harness';
import { pinRateWindow } from '../support/rate-clock';
import { adminAuth, auth, bearer, forgedToken } from '../support/tokens';

const BUDGET = 4;

/** Signature checks the instance has run so far (its /metrics: auth_token_checks_total, both results). */
async function signatureChecks(harness: AppHarness): Promise<number> {
  const text = (await harness.app.inject({ method: 'GET', url: '/metrics' })).body;
  return [...text.matchAll(/^auth_token_checks_total\{[^}]*\} (\d+)$/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

/**
 * The queue join is answered by a shortcut before the Nest pipeline (queue-shortcuts.ts); a bad
 * token there meets the same per-address failure budget (AUTH_FAILURES_PER_SECOND) as on a guarded route.
 */
describe('bad tokens on the queue-join shortcut', () => {
  let harness: AppHarness;
  let productId: string;
  beforeAll(async () => {
    harness = await startApp({ AUTH_FAILURES_PER_SECOND: String(BUDGET) });
    const created = await harness.app.inject({
      method: 'POST',
      url: '/admin/products',
      headers: adminAuth(),
      payload: { sku: 'JOIN-FAILURES', name: 'Queued', priceCents: 100, stock: 5, waitingRoom: { admitPerSecond: 1 } },
    });
    productId = created.json<{ id: string }>().id;
  });
  afterAll(() => harness.close());

  const join = (headers: Record<string, string>, remoteAddress: string) =>
    harness.app.inject({ method: 'POST', url: `/products/${productId}/queue`, headers, remoteAddress });

  it('answers 429 past AUTH_FAILURES_PER_SECOND, and checks no signature for an address past it', async () => {
    const unpin = pinRateWindow(harness.app); // one window for the whole run
    try {
      const before = await signatureChecks(harness);
      const statuses: number[] = [];
      // One after another, each a token never seen (nothing remembered), as a guesser would send them.
      for (let i = 0; i < 5 * BUDGET; i++)
        statuses.push((await join(bearer(forgedToken(`join-guess-${i}`)), '192.0.2.91')).statusCode);
      expect(statuses.slice(0, BUDGET)).toEqual(Array(BUDGET).fill(401));
      expect(statuses.slice(BUDGET)).toEqual(Array(4 * BUDGET).fill(429));
      // One check per token within the budget, one for the token that found it spent; none after.
      expect((await signatureChecks(harness)) - before).toBe(BUDGET + 1);
      // The budget is the address's: another address, and a valid token, still get in.
      expect((await join(bearer(forgedToken('elsewhere')), '192.0.2.92')).statusCode).toBe(401);
      expect((await join(auth('honest-joiner'), '192.0.2.93')).statusCode).toBe(200);
    } finally {
      unpin();
    }
  });
});
