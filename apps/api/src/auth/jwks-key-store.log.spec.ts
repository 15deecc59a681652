import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { JwksKeyStore } from './jwks-key-store';

const CODE = 'provider-function-key-7f3a9';

describe('JwksKeyStore, when a read of the key set fails', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(500).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("logs the key set's address without its query values, which may be the provider's credential", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      await new JwksKeyStore(`${base}?code=${CODE}&tenant=shop`).load();
      const lines = warn.mock.calls.map(([message]) => String(message));
      expect(lines.some((line) => line.includes(`${base}?code=***&tenant=***`))).toBe(true);
      expect(lines.join('\n')).not.toContain(CODE);
    } finally {
      warn.mockRestore();
    }
  });
});
