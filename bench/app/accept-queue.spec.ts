import { connect, createServer, Socket } from 'node:net';
import { acceptQueueLength } from './accept-queue';

const TABLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00001000:0000001F 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1
   2: 0100007F:1F91 00000000:0000 0A 00000200:00000000 00:00000000 00000000     0        0 3 1 0 100 0 0 10 0
`;

describe('acceptQueueLength', () => {
  it('reads rx_queue of the LISTEN socket of the port, not of its connections', () => {
    expect(acceptQueueLength(0x1f90, TABLE)).toBe(0x1f);
    expect(acceptQueueLength(0x1f91, TABLE)).toBe(0);
  });

  it('is undefined for a port nobody listens on', () => {
    expect(acceptQueueLength(0x1f92, TABLE)).toBeUndefined();
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
