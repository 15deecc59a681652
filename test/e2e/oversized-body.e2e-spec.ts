/**
 * A body over the limit is answered 413 PAYLOAD_TOO_LARGE, and the client gets to read that
 * answer: the server reads and discards the rest of a body up to a bound before it answers and
 * closes, so a client still sending is not reset. Past the bound it closes without reading on.
 */
import { connect, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { AppHarness, startApp } from '../support/app-harness';
import { Api, injectSender } from '../support/api-client';
import { auth } from '../support/tokens';

jest.setTimeout(120_000);

const TWO_MB = 2 * 1024 * 1024;

interface Exchange {
  /** The first line and the body of the answer, as far as it arrived. */
  statusLine: string;
  body: string;
  /** The socket error the client met, if any (EPIPE, ECONNRESET). */
  error?: string;
  /** Body bytes the client managed to hand to its socket before the server closed. */
  written: number;
}

/**
 * Sends a purchase with a body of `size` bytes on a fresh connection (Content-Length, or chunked
 * when `chunked`) in 64 KiB pieces, `paceMs` apart like a client on a real network (0: as fast as
 * the socket takes them), and reads whatever comes back until the close.
 */
function sendBody(port: number, path: string, headers: Record<string, string>, size: number, { chunked = false, paceMs = 0 } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    // Like an HTTP client, it sends its whole body whatever comes back meanwhile: the server's FIN
    // does not end our side, only a failed write (the server reset the connection) stops it.
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const received: Buffer[] = [];
    let written = 0;
    let error: string | undefined;
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      resolve({ statusLine: head.split('\r\n')[0] ?? '', body: rest.join('\r\n\r\n'), error, written });
    });
    const writeRequest = async (): Promise<void> => {
      const lines = [`POST ${path} HTTP/1.1`, 'Host: localhost', 'Content-Type: application/json', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      lines.push(chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      const piece = Buffer.alloc(64 * 1024, 'a');
      piece.write('{"quantity":1,"pad":"');
      while (written < size && !socket.destroyed) {
        const n = Math.min(piece.length, size - written);
        const data = chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), piece.subarray(0, n), Buffer.from('\r\n')]) : piece.subarray(0, n);
        written += n;
        if (!socket.write(data)) await new Promise((r) => socket.once('drain', r).once('close', r));
        if (paceMs) await new Promise((r) => setTimeout(r, paceMs));
      }
      if (chunked && !socket.destroyed) socket.write('0\r\n\r\n');
      // Half-close only: the answer may still be on its way.
      if (!socket.destroyed) socket.end();
    };
    // A throw while writing ends the exchange as a reset would: recorded as its error, then closed.
    socket.on('connect', () => {
      writeRequest().catch((e: Error) => socket.destroy(e));
    });
  });
}

describe('bodies over the limit', () => {
  let harness: AppHarness;
  let port: number;
  let productId: string;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '100000' });
    await harness.app.listen(0, '127.0.0.1');
    port = (harness.app.getHttpServer().address() as AddressInfo).port;
    productId = (await new Api(injectSender(harness.app)).createProduct({ stock: 5 })).id;
  });
  afterAll(async () => {
    await harness?.close();
  });

  const expect413 = (exchange: Exchange) => {
    expect({ statusLine: exchange.statusLine, error: exchange.error }).toEqual({ statusLine: 'HTTP/1.1 413 Payload Too Large', error: undefined });
    expect(JSON.parse(exchange.body)).toEqual({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) });
  };

  it('answers each of 50 sequential 2 MB purchase bodies (fresh connections) with the 413 JSON, never a reset', async () => {
    const outcomes: Exchange[] = [];
    for (let i = 0; i < 50; i++) outcomes.push(await sendBody(port, `/products/${productId}/purchase`, auth(`big-body-${i}`), TWO_MB, { paceMs: 1 }));
    const wrong = outcomes.filter((o) => o.statusLine !== 'HTTP/1.1 413 Payload Too Large' || o.error !== undefined);
    expect(wrong.map((o) => `${o.statusLine || '(no answer)'} ${o.error ?? ''}`)).toEqual([]);
    outcomes.slice(0, 3).forEach(expect413);
  });

  it('answers a chunked 2 MB body with the 413 JSON too', async () => {
    for (let i = 0; i < 5; i++) expect413(await sendBody(port, `/products/${productId}/purchase`, auth(`big-chunked-${i}`), TWO_MB, { chunked: true, paceMs: 1 }));
  });

  it('does not read a 64 MB body to its end: it closes after a bound, within seconds', async () => {
    const startedAt = Date.now();
    const exchange = await sendBody(port, `/products/${productId}/purchase`, auth('huge-body'), 64 * 1024 * 1024);
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    // The client could not hand over the whole body: the server stopped reading and closed.
    expect(exchange.written).toBeLessThan(64 * 1024 * 1024);
  });

  it('passes a chunked body under the limit to the route as before', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const received: Buffer[] = [];
      socket.on('data', (chunk) => received.push(chunk)).on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(received).toString('utf8')));
      const { authorization } = auth('small-chunked');
      const body = '{"quantity":1}';
      socket.write(`POST /products/${productId}/purchase HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAuthorization: ${authorization}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
      socket.write(`${(8).toString(16)}\r\n${body.slice(0, 8)}\r\n${(body.length - 8).toString(16)}\r\n${body.slice(8)}\r\n0\r\n\r\n`);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
    expect(JSON.parse(answer.split('\r\n\r\n')[1])).toMatchObject({ productId, userId: 'small-chunked', quantity: 1 });
  });

  it('still serves a purchase afterwards', async () => {
    const res = await new Api(injectSender(harness.app)).purchase(productId, 'after-big-bodies');
    expect(res.status).toBe(201);
  });
});
