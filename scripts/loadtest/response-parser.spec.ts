import { ResponseParser } from './response-parser';

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('ResponseParser', () => {
  it('reads a Content-Length answer split anywhere, headers lower-cased and repeated ones joined', () => {
    const wire =
      'HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 10\r\n\r\n{"id":"7"}';
    const parser = new ResponseParser();
    const states = [...wire.slice(0, -1)].map((c) => parser.push(bytes(c)));
    expect(states.every((s) => s === 'more')).toBe(true);
    expect(parser.push(bytes(wire.slice(-1)))).toBe('done');
    expect(parser.take()).toEqual({
      status: 201,
      headers: { 'content-type': 'application/json', 'x-a': '1, 2', 'content-length': '10' },
      body: '{"id":"7"}',
      keepAlive: true,
    });
  });

  it('keeps the socket for the next request only when the answer ended exactly and did not say close', () => {
    const parser = new ResponseParser();
    expect(parser.push(bytes('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'))).toBe('done');
    expect(parser.take()).toMatchObject({ status: 200, body: 'ok', keepAlive: true });
    expect(
      parser.push(bytes('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')),
    ).toBe('done');
    expect(parser.take()).toMatchObject({ status: 503, body: '', keepAlive: false });
  });

  it('reads chunks, and a body framed by the end of the stream', () => {
    const chunked = new ResponseParser();
    expect(chunked.push(bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n'))).toBe('more');
    expect(chunked.push(bytes('3\r\n:1}\r\n0\r\n\r\n'))).toBe('done');
    expect(chunked.take()).toMatchObject({ body: '{"a":1}', keepAlive: true });
    const untilEnd = new ResponseParser();
    expect(untilEnd.push(bytes('HTTP/1.0 200 OK\r\n\r\nhello'))).toBe('more');
    expect(untilEnd.endOfStream()).toBe('done');
    expect(untilEnd.take()).toMatchObject({ body: 'hello', keepAlive: false });
  });

  it('refuses what is not an HTTP/1.x answer, and an answer cut short', () => {
    expect(new ResponseParser().push(bytes('SSH-2.0-OpenSSH\r\n\r\n'))).toBe('error');
    expect(new ResponseParser().push(bytes('HTTP/1.1 200 OK\r\nno colon here\r\n\r\n'))).toBe('error');
    const cut = new ResponseParser();
    expect(cut.push(bytes('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc'))).toBe('more');
    expect(cut.endOfStream()).toBe('error');
  });
});
