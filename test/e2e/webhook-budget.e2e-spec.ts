import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { AppHarness, startApp } from '../support/app-harness';
import { pinRateWindow } from '../support/rate-clock';

const BUDGET = 5;
const SECRET = 'whsec_e2e-secret-of-at-least-thirty-two-bytes';
// The most the default body limit lets a caller make us hash per request.
const BODY = JSON.stringify({
  eventId: 'evt_forged',
  type: 'payment.succeeded',
  orderId: '1',
  amountCents: 1,
  pad: 'x'.repeat(60_000),
});

/** The status line's code of the first answer on a socket that sends a webhook's headers and never its body. */
function statusWithoutBody(port: number, timeoutMs: number): Promise<number | 'no answer'> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const finish = (answer: number | 'no answer') => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish('no answer'), timeoutMs);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      if (status) finish(Number(status[1]));
    });
    socket.write(
      'POST /payments/webhook HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(BODY)}\r\nPayment-Signature: t=1,v1=${'0'.repeat(64)}\r\n\r\n`,
    );
  });
}

/**
 * POST /payments/webhook checks an HMAC over a body of up to the body limit: a per-address budget
 * (PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS) is spent before the body is even read.
 */
describe('the payment webhook budget per client address', () => {
  let harness: AppHarness;
  let port: number;
  beforeAll(async () => {
    harness = await startApp({
      PAYMENT_WEBHOOK_SECRET: SECRET,
      PAYMENT_WEBHOOK_REQUESTS_PER_SECOND_PER_ADDRESS: String(BUDGET),
    });
    await harness.app.listen(0, '127.0.0.1');
    port = (harness.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => harness.close());

  const deliver = (remoteAddress: string) =>
    harness.app.inject({
      method: 'POST',
      url: '/payments/webhook',
      remoteAddress,
      headers: {
        'content-type': 'application/json',
        'payment-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
      },
      payload: BODY,
    });

  it('answers 429 RATE_LIMITED with Retry-After past the budget, whatever the signature', async () => {
    const unpin = pinRateWindow(harness.app); // one window for the whole burst
    try {
      const answers = await Promise.all(Array.from({ length: 3 * BUDGET }, () => deliver('198.51.100.60')));
      const statuses = answers.map((answer) => answer.statusCode);
      expect(statuses.filter((status) => status === 401)).toHaveLength(BUDGET);
      expect(statuses.filter((status) => status === 429)).toHaveLength(2 * BUDGET);
      const limited = answers.find((answer) => answer.statusCode === 429)!;
      expect(limited.json()).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another address keeps its own budget: its forged event is judged (401), not refused.
      expect((await deliver('198.51.100.61')).json()).toMatchObject({ statusCode: 401, code: 'SIGNATURE_INVALID' });
    } finally {
      unpin();
    }
  });

  it('refuses an address past its budget before reading the body: the 429 comes while the body is still unsent', async () => {
    const unpin = pinRateWindow(harness.app);
    try {
      for (let i = 0; i < BUDGET; i++) expect((await deliver('127.0.0.1')).statusCode).toBe(401);
      expect(await statusWithoutBody(port, 3000)).toBe(429);
    } finally {
      unpin();
    }
  });
});
