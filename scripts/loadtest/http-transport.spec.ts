import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { GatedTransport } from './gated-transport';
import { HttpTransport } from './http-transport';

describe("a client's address on the wire", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Answers with the address the request came from and the X-Forwarded-For it carried.
    server = createServer((req, res) =>
      res.end(JSON.stringify({ from: req.socket.remoteAddress, xff: req.headers['x-forwarded-for'] ?? null })),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('binds each client to its own loopback source address, or names it in X-Forwarded-For', async () => {
    const person = new GatedTransport(4, 2, 2000, { localAddress: '127.0.1.7' });
    const bot = new HttpTransport(2, 2000, { localAddress: '127.1.0.3' });
    const remote = new HttpTransport(2, 2000, { forwardedFor: '10.1.0.3' });
    const plain = new HttpTransport(2, 2000);
    try {
      const seen = await Promise.all(
        [person, bot, remote, plain].map(async (t) => JSON.parse((await t.get(url, {})).body) as object),
      );
      expect(seen).toEqual([
        { from: '127.0.1.7', xff: null },
        { from: '127.1.0.3', xff: null },
        { from: '127.0.0.1', xff: '10.1.0.3' },
        { from: '127.0.0.1', xff: null },
      ]);
      expect(JSON.parse((await person.post(url, {}, '{}')).body)).toEqual({ from: '127.0.1.7', xff: null });
    } finally {
      for (const t of [person, bot, remote, plain]) t.close();
    }
  });
});
