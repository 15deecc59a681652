import { createServer, Server } from 'node:http';
import { freePort } from '../../test/support/free-port';
import { ensureHaproxy, startBalancer } from './balancer';

/** deploy/haproxy/haproxy.cfg, run by the real HAProxy. */
describe('the balancer configuration', () => {
  beforeAll(() => ensureHaproxy());

  it('answers the contract 503 OVERLOADED, with Retry-After, when no instance takes the request', async () => {
    const balancer = await startBalancer(await freePort(), { maxConn: 4, queueMs: 200 }, { waitForLive: false });
    try {
      const res = await fetch(`${balancer.url}/products/1/purchase`, { method: 'POST' });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ statusCode: 503, code: 'OVERLOADED', message: expect.any(String) });
    } finally {
      await balancer.stop();
    }
  }, 15_000);

  it('reuses its kept-alive connections to the instance across clients', async () => {
    const peers = new Set<number>();
    const server: Server = createServer((req, res) => {
      // HAProxy's health checks (GET /health/live) come on connections of their own.
      if (req.url !== '/health/live') peers.add(req.socket.remotePort!);
      res.end('{"status":"ok"}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const balancer = await startBalancer((server.address() as { port: number }).port, { maxConn: 4, queueMs: 200 });
    try {
      for (let i = 0; i < 10; i++) {
        // A new client connection each time: only the balancer's side may be reused.
        const res = await fetch(`${balancer.url}/products/1`, { headers: { connection: 'close' } });
        expect(res.status).toBe(200);
        await res.text();
      }
      expect(peers.size).toBe(1);
    } finally {
      await balancer.stop();
      server.close();
    }
  });
});
