import { connect, Socket } from 'node:net';
import { token } from './tokens';

/** What one slow-body client saw, timed from the first byte it sent. */
export interface TrickleOutcome {
  /** Body bytes written to the connection before the server ended it. */
  bodyBytesSent: number;
  /** When the connection ended, in ms after the first byte; undefined if it was still open when the client gave up. */
  closedAfterMs: number | undefined;
  /** Everything the server sent back (an answer, or nothing when it only closed). */
  answer: string;
}

export interface TrickleOptions {
  /** The body length the headers promise; far more than will ever be sent. */
  declaredBytes: number;
  /** One body byte per this many ms, the first with the headers. */
  everyMs: number;
  /** The client closes the connection itself after this long (the server never cut it). */
  giveUpAfterMs: number;
}

/** A purchase's request line and headers, promising a body of `declaredBytes`. */
export function purchaseHead(productId: string, user: string, declaredBytes: number): string {
  return [
    `POST /products/${productId}/purchase HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${token(user)}`,
    'Content-Type: application/json',
    `Content-Length: ${declaredBytes}`,
    '',
    '',
  ].join('\r\n');
}

/**
 * Sends `head` at once and then the body one space at a time (valid JSON whitespace, so nothing
 * but its slowness is wrong with it), until the server ends the connection or the client gives up.
 */
export function trickle(port: number, head: string, options: TrickleOptions): Promise<TrickleOutcome> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let startedAt = 0;
    let bodyBytesSent = 0;
    let answer = '';
    let finished = false;
    let ticker: NodeJS.Timeout | undefined;
    const sendOneByte = (): void => {
      if (!socket.writable || bodyBytesSent >= options.declaredBytes) return;
      socket.write(' ', (error) => {
        if (!error) bodyBytesSent++;
      });
    };
    const finish = (closedAfterMs: number | undefined): void => {
      if (finished) return;
      finished = true;
      clearInterval(ticker);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ bodyBytesSent, closedAfterMs, answer });
    };
    const giveUp = setTimeout(() => finish(undefined), options.giveUpAfterMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      startedAt = Date.now();
      socket.write(head);
      sendOneByte();
      ticker = setInterval(sendOneByte, options.everyMs);
    });
    socket.on('data', (chunk: string) => (answer += chunk));
    // A reset after the answer is still the server ending the connection.
    socket.on('error', () => finish(startedAt ? Date.now() - startedAt : 0));
    socket.on('close', () => finish(startedAt ? Date.now() - startedAt : 0));
  });
}

/** The status of the first answer on a connection and its JSON body, or undefined for none. */
export function firstAnswer(raw: string): { status: number; body: unknown } | undefined {
  const status = /^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1];
  if (status === undefined) return undefined;
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(raw)?.[1] ?? 0);
  const start = raw.indexOf('\r\n\r\n') + 4;
  let body: unknown;
  try {
    body = JSON.parse(raw.slice(start, start + length));
  } catch {
    body = raw.slice(start, start + length);
  }
  return { status: Number(status), body };
}
