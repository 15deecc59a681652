import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { nodeClientLoad } from './node-client-load';

describe('nodeClientLoad', () => {
  let server: Server;
  let url: string;
  const sockets = new Set<Socket>();
  const seen: Array<{ method?: string; path?: string; authorization?: string; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      sockets.add(req.socket);
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, path: req.url, authorization: req.headers.authorization, body });
        res.writeHead(seen.length % 2 === 0 ? 201 : 409).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  it('holds its connections open and tells what the server answered, by status', async () => {
    const tokens = ['token-a', 'token-b', 'token-c'];
    const load = await nodeClientLoad({
      url: `${url}/products/7/purchase`,
      method: 'POST',
      body: '{"quantity":1}',
      connections: 40,
      seconds: 1,
      tokens,
    });

    expect(sockets.size).toBe(40);
    expect(load.requests).toBeGreaterThan(0);
    // What the client counts is what the server sent: every answer it read, split as the server split them.
    const created = seen.filter((_, i) => (i + 1) % 2 === 0).length;
    expect(load.byAnswer['201']).toBeGreaterThanOrEqual(created - 40);
    expect(load.byAnswer['201']).toBeLessThanOrEqual(created);
    expect(load.byAnswer['201'] + load.byAnswer['409']).toBe(load.requests);
    expect(new Set(seen.map((r) => `${r.method} ${r.path} ${r.body}`))).toEqual(
      new Set(['POST /products/7/purchase {"quantity":1}']),
    );
    expect(new Set(seen.map((r) => r.authorization))).toEqual(new Set(tokens.map((t) => `Bearer ${t}`)));
  });
});
