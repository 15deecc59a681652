import { createServer } from 'node:net';

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port P such that P and P + 10000 are both free: a Cluster node also listens on its bus
 * port P + 10000, which an ephemeral port from the kernel would push past 65535.
 */
export async function freeClusterPort(taken: Set<number> = new Set()): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await canListen(port)) && (await canListen(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port pair (P, P + 10000) for a Cluster node');
}
