import net from 'node:net';
import { drive, DriveOptions } from './driver';

/** Purchases a thread sends to its stand-in before the sale: enough for V8 to optimise the path. */
const REHEARSAL_PURCHASES = 4000;
/** One answer in this many is a 409 SOLD_OUT, so that the refusal's path is compiled too. */
const REFUSAL_EVERY = 8;

/**
 * Sends the thread's purchase path (socket client, answer parser, recorder, history) a few thousand
 * purchases answered by a stand-in on a loopback port of its own, before the run's clock starts.
 * A fresh thread otherwise compiles that path while the sale runs, and V8's compiler threads then
 * take as much CPU as a fifth of the load's (docs/LOADTEST.md, "What the generator costs").
 * Nothing is sent to the deployment and nothing is kept.
 *
 * `options` are built as the run's own (same fields in the same order, a recorder and history of
 * their own): V8 compiles for the shapes it saw, and other shapes in the sale would undo its work.
 * Only the addresses, the number of purchases and the run id are replaced.
 */
export async function rehearsePurchases(options: DriveOptions): Promise<void> {
  const server = net.createServer(answerPurchases());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  options.urls = [`http://127.0.0.1:${port}`];
  options.requests = REHEARSAL_PURCHASES;
  options.durationS = undefined;
  options.runId = `${options.runId}-rehearsal`;
  try {
    await drive(options);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The API's answers as the purchase path reads them: the same headers, an order or a refusal. */
function answerPurchases(): (socket: net.Socket) => void {
  let answered = 0;
  return (socket) => {
    let pending = '';
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (;;) {
        const headEnd = pending.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(pending.slice(0, headEnd))?.[1] ?? 0);
        if (pending.length < headEnd + 4 + length) return;
        const key = /\r\nidempotency-key: *([^\r]*)/i.exec(pending.slice(0, headEnd))?.[1] ?? '';
        pending = pending.slice(headEnd + 4 + length);
        socket.write(answer(key, ++answered));
      }
    });
  };
}

function answer(key: string, answered: number): string {
  const refused = answered % REFUSAL_EVERY === 0;
  const now = new Date();
  const body = refused
    ? JSON.stringify({ statusCode: 409, code: 'SOLD_OUT', message: 'product 1 does not have enough stock' })
    : JSON.stringify({
        id: String(answered),
        productId: '1',
        userId: key,
        quantity: 1,
        status: 'PENDING_PAYMENT',
        createdAt: now.toISOString(),
        expiresAt: now.toISOString(),
        paidAt: null,
        purchaseId: key,
      });
  return (
    `HTTP/1.1 ${refused ? '409 Conflict' : '201 Created'}\r\n` +
    `x-request-id: rehearsal-${answered}\r\n` +
    "content-security-policy: default-src 'none';frame-ancestors 'none'\r\n" +
    'cross-origin-resource-policy: same-origin\r\nreferrer-policy: no-referrer\r\n' +
    'strict-transport-security: max-age=31536000; includeSubDomains\r\nx-content-type-options: nosniff\r\n' +
    'x-frame-options: DENY\r\nx-permitted-cross-domain-policies: none\r\ncache-control: no-store\r\n' +
    `purchase-id: ${key}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nDate: ${now.toUTCString()}\r\n` +
    `Connection: keep-alive\r\nKeep-Alive: timeout=72\r\n\r\n${body}`
  );
}
