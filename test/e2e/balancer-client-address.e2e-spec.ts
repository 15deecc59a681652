import { Balancer, ensureHaproxy, startBalancer } from '../../bench/app/balancer';
import { AppHarness, startApp } from '../support/app-harness';

const BUDGET = 4;

/**
 * deploy/haproxy/haproxy.cfg in front of the API with TRUST_PROXY=loopback: the API sees the
 * client address HAProxy saw, and a client cannot pick another by sending X-Forwarded-For.
 */
describe('the client address through the repository HAProxy config', () => {
  let harness: AppHarness;
  let balancer: Balancer;

  beforeAll(async () => {
    ensureHaproxy();
    harness = await startApp({ TRUST_PROXY: 'loopback', AUTH_FAILURES_PER_SECOND: String(BUDGET) });
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(await harness.app.getUrl()).port);
    balancer = await startBalancer(port, { maxConn: 16, queueMs: 1000 });
  }, 60_000);
  afterAll(async () => {
    await balancer?.stop();
    await harness?.close();
  });

  it('counts requests without a token against the real client, whatever X-Forwarded-For it sends', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20)); // start of a window
    const statuses = await Promise.all(
      Array.from({ length: 4 * BUDGET }, (_, i) => fetch(`${balancer.url}/orders`, { headers: { 'x-forwarded-for': `10.77.0.${i}` } }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(BUDGET);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(3 * BUDGET);
  });
});
