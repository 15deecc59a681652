import { ReferenceServer, startBareFastify, startBareNest } from './reference-servers';

/** The bench's reference programs: each must answer its route, and nothing more, then stop. */
describe('the bench reference servers', () => {
  async function check(server: ReferenceServer, path: string, otherPath: string): Promise<void> {
    try {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      expect((await fetch(`${server.url}${otherPath}`)).status).toBe(404);
    } finally {
      await server.stop();
    }
    await expect(fetch(`${server.url}${path}`)).rejects.toThrow();
  }

  it('bare Fastify answers GET /live', async () => {
    await check(await startBareFastify(), '/live', '/health/live');
  }, 20_000);

  it('bare NestJS answers GET /health/live through a Nest controller', async () => {
    const server = await startBareNest();
    // Nest's own 404 body, not Fastify's: the route is Nest's.
    const missing = await (await fetch(`${server.url}/nope`)).json();
    expect(missing).toMatchObject({ statusCode: 404, message: 'Cannot GET /nope' });
    await check(server, '/health/live', '/live');
  }, 20_000);
});
