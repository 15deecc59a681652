import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runLoadTest } from '../../scripts/loadtest';
import { mintToken } from '../../scripts/loadtest/jwt';
import { ApiProcess } from '../../scripts/infra/api-process';
import { ProductionInstance, startProductionInstance } from '../support/production-instance';

jest.setTimeout(180_000);

const SECRET = randomBytes(32).toString('hex');
const AUDIENCE = 'flash-sale-audit-test';

/**
 * The load test against a production-mode instance, whose budgets hold an admin's order listing to
 * RATE_LIMIT_PER_SECOND pages a second like anyone's: the audit's pages meet 429s, wait out their
 * Retry-After and finish, and the run passes. Ground truth: the orders the test reads from Postgres.
 */
describe('the load test against a production-mode instance', () => {
  let instance: ProductionInstance;
  let api: ApiProcess;

  beforeAll(async () => {
    instance = await startProductionInstance(
      { secret: SECRET, audience: AUDIENCE },
      {
        // One page of GET /orders a second: an audit of 1,200 orders (three pages) must wait.
        RATE_LIMIT_PER_SECOND: '1',
      },
    );
    api = instance.api;
  }, 120_000);

  afterAll(() => instance?.stop());

  it('finishes its audit through the listing budget and passes', async () => {
    const result = await runLoadTest({
      urls: [api.url],
      stock: 1200,
      users: 1200,
      connections: 32,
      requests: 1200,
      maxRetries: 20,
      tokenSecret: SECRET,
      tokenAudience: AUDIENCE,
      reportDir: null,
    });
    const failed = result.invariants.filter((i) => !i.ok && i.severity === 'error').map((i) => i.name);
    expect(failed).toEqual([]);
    const client = new Client({ connectionString: instance.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ orders: string }>(
        'SELECT count(*)::text AS orders FROM orders WHERE product_id = $1',
        [result.product.id],
      );
      // The audit read every order there is: a listing cut short by a 429 would have failed above.
      expect(Number(rows[0].orders)).toBeGreaterThan(1000);
    } finally {
      await client.end();
    }
    // The budget the audit went through: a second page in the same second is refused.
    const admin = { authorization: `Bearer ${mintToken(SECRET, 'audit-probe', 'admin', 600, { audience: AUDIENCE })}` };
    const page = () => fetch(`${api.url}/orders?productId=${result.product.id}&limit=500`, { headers: admin });
    const statuses = [(await page()).status, (await page()).status, (await page()).status];
    expect(statuses).toContain(429);
  });
});
