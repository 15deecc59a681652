import { randomBytes } from 'node:crypto';
import { opsListenerOf } from '../../apps/api/src/metrics/ops-routes';
import type { FastifyInstance } from 'fastify';
import { AppHarness, startApp, startInstance } from '../support/app-harness';
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
    const unknown = await fetch(`${opsUrl}/no-such-route?x=1`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
  });

  it('adds nothing to a public route: its hooks are those of an instance that serves everything on PORT', async () => {
    // Two instances alike but for METRICS_PORT (outside production, unset means no split at all).
    const testMode = { ...harness.env, NODE_ENV: 'test' };
    const split = await startInstance({ ...testMode, METRICS_PORT: String(await freePort()) });
    const together = await startInstance({ ...testMode, METRICS_PORT: '' });
    try {
      const splitHooks = hooksByRoute(split.getHttpAdapter().getInstance());
      const togetherHooks = hooksByRoute(together.getHttpAdapter().getInstance());
      const opsRoutes = ['/metrics', '/health/details'];
      const publicRoutes = [...togetherHooks.keys()].filter(
        (route) => !opsRoutes.some((ops) => route.startsWith(`${ops} (`)),
      );
      expect(publicRoutes).toEqual(expect.arrayContaining([expect.stringMatching(/^\/products\/:id \(GET\)/)]));
      for (const route of publicRoutes)
        expect([route, splitHooks.get(route)]).toEqual([route, togetherHooks.get(route)]);
      // The split itself: a hook of the operations routes alone.
      expect(splitHooks.get('/metrics (GET)')).not.toEqual(togetherHooks.get('/metrics (GET)'));
    } finally {
      await Promise.all([split.close(), together.close()]);
    }
  });

  it('allows no browser origin by default', async () => {
    const res = await fetch(`${publicUrl}/health`, { headers: { origin: 'https://evil.example.com' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

/** Each route's hooks as Fastify lists them (printRoutes' tree), by `full path (METHOD)`. */
function hooksByRoute(fastify: FastifyInstance): Map<string, string[]> {
  const routes = new Map<string, string[]>();
  const segments: string[] = [];
  let current: string[] = [];
  for (const line of fastify.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n')) {
    const rest = line.replace(/^[│├└─\s]+/, '');
    if (rest.startsWith('•')) {
      current.push(rest);
      continue;
    }
    const node = /^(\S+)(?: \(([A-Z, ]+)\))?$/.exec(rest);
    if (!node) continue;
    const depth = (line.length - rest.length) / 4 - 1;
    segments.splice(depth, segments.length, node[1]);
    current = [];
    if (node[2]) routes.set(`${segments.join('')} (${node[2]})`, current);
  }
  return routes;
}
