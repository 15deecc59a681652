/**
 * Requests that Node's HTTP parser refuses never reach a route (so no Nest filter sees them): over
 * a real socket, each must still get a 4xx in the contract's shape, and the instance keeps serving.
 */
import { connect } from 'node:net';
import { AppHarness, startApp } from '../support/app-harness';

jest.setTimeout(60_000);

/** Sends raw bytes and reads until the server closes the connection (or 5 s pass). */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.setTimeout(5_000, () => {
      socket.destroy();
      reject(new Error(`no answer; got so far: ${answer.slice(0, 200)}`));
    });
    socket.write(request);
  });
}

function parse(answer: string): { status: number; body: { statusCode: number; code: string; message: string } } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  return { status, body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) };
}

describe('HTTP parser abuse', () => {
  let harness: AppHarness;
  let port: number;

  beforeAll(async () => {
    harness = await startApp();
    await harness.app.listen(0, '127.0.0.1');
    port = Number(new URL(await harness.app.getUrl()).port);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('answers headers over the size limit with 431 HEADERS_TOO_LARGE in the contract body', async () => {
    const { status, body } = parse(await exchange(port, `GET /products/1 HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(status).toBe(431);
    expect(body).toEqual({ statusCode: 431, code: 'HEADERS_TOO_LARGE', message: expect.any(String) });
  });

  it('answers a malformed header line with 400 VALIDATION_FAILED in the contract body', async () => {
    const { status, body } = parse(await exchange(port, 'GET /products/1 HTTP/1.1\r\nHost: x\r\nthis is not a header\r\n\r\n'));
    expect(status).toBe(400);
    expect(body).toEqual({ statusCode: 400, code: 'VALIDATION_FAILED', message: expect.any(String) });
  });

  it('answers a broken percent-encoding in the path with the contract body, not Fastify\'s', async () => {
    const { status, body } = parse(await exchange(port, 'GET /products/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    expect(status).toBe(400);
    expect(body).toEqual({ statusCode: 400, code: 'VALIDATION_FAILED', message: expect.any(String) });
  });

  it('keeps serving afterwards', async () => {
    const answer = await exchange(port, 'GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
  });
});
