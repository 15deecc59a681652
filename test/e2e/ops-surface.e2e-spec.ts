import { randomBytes } from 'node:crypto';
import { opsListenerOf } from '../../apps/api/src/metrics/ops-routes';
import { AppHarness, startApp } from '../support/app-harness';
import { freePort } from '../support/free-port';
import { createOwnerRole } from '../support/test-database';

/** Production as shipped: what the public port shows, and what only the operations port does. */
describe('the operations surface in production (METRICS_PORT)', () => {
  let harness: AppHarness;
  let publicUrl: string;
  let opsUrl: string;
  let dropRole: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const metricsPort = await freePort();
    // Production refuses postgres:postgres: the instance connects as a role of its own, as deployed.
    const ownRole = async (url: string) => {
      const owner = await createOwnerRole(url);
      dropRole = owner.dropRole;
      return owner.url;
    };
    // The test's redis-server has no password: said on purpose, as production requires.
    const production = { NODE_ENV: 'production', JWT_SECRET: randomBytes(32).toString('hex'), JWT_AUDIENCE: 'flash-sale-api', REDIS_ALLOW_NO_AUTH: 'true' };
    harness = await startApp({ ...production, METRICS_PORT: String(metricsPort) }, ownRole);
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    publicUrl = await harness.app.getUrl();
    const bound = await opsListenerOf(harness.app.getHttpAdapter().getInstance()).listen('127.0.0.1');
    expect(bound).toBe(metricsPort);
    opsUrl = `http://127.0.0.1:${metricsPort}`;
  });
  afterAll(async () => {
    await harness.close();
    await dropRole();
  });

  it.each(['/metrics', '/health/details', '/docs', '/docs-json'])('does not serve %s on the public port', async (path) => {
    const res = await fetch(`${publicUrl}${path}`);
    expect(res.status).toBe(404);
    const body = await res.text();
    expect(body).not.toMatch(/process_resident_memory_bytes|redis|database|swagger/i);
  });

  it('answers the public /health with up or down and nothing more', async () => {
    const res = await fetch(`${publicUrl}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${publicUrl}/health/live`)).status).toBe(200);
  });

  it('serves /metrics and /health/details on the operations port', async () => {
    const metrics = await fetch(`${opsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^process_resident_memory_bytes /m);
    const details = await fetch(`${opsUrl}/health/details`);
    expect(details.status).toBe(200);
    expect(await details.json()).toMatchObject({ status: 'ok', details: { database: { status: 'up' }, redis: { status: 'up' } } });
  });

  it('serves nothing else on the operations port', async () => {
    expect((await fetch(`${opsUrl}/products/1`)).status).toBe(404);
    expect((await fetch(`${opsUrl}/orders`)).status).toBe(404);
  });

  it('allows no browser origin by default', async () => {
    const res = await fetch(`${publicUrl}/health`, { headers: { origin: 'https://evil.example.com' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
