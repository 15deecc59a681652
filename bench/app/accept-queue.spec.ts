import { connect, createServer, Socket } from 'node:net';
import { acceptQueueLength, ensureSs } from './accept-queue';

const SS = `LISTEN 31     4096       127.0.0.1:8080      0.0.0.0:*
ESTAB  0      0          127.0.0.1:8080      127.0.0.1:54321
LISTEN 0      511        127.0.0.1:8081      0.0.0.0:*
`;

describe('acceptQueueLength', () => {
  beforeAll(() => ensureSs());

  it('reads Recv-Q of the LISTEN socket of the port, not its backlog or its connections', () => {
    expect(acceptQueueLength(8080, SS)).toBe(31);
    expect(acceptQueueLength(8081, SS)).toBe(0);
  });

  it('is undefined for a port nobody listens on', () => {
    expect(acceptQueueLength(8082, SS)).toBeUndefined();
  });

  it('counts completed connections this process has not accepted yet', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as { port: number }).port;
    const clients: Socket[] = [];
    try {
      expect(acceptQueueLength(port)).toBe(0);
      for (let i = 0; i < 3; i++) clients.push(connect(port, '127.0.0.1'));
      // Node issues connect() on the next tick; loopback handshakes complete in the kernel at once,
      // and this tick runs before the event loop could accept any of them.
      const queued = await new Promise<number | undefined>((done) => process.nextTick(() => done(acceptQueueLength(port))));
      expect(queued).toBe(3);
    } finally {
      clients.forEach((c) => c.destroy());
      server.close();
    }
  });
});
