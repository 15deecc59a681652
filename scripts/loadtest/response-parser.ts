/** Where a response stands after the bytes read so far. */
export type ParseState = 'more' | 'done' | 'error';

export interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the socket may carry another request. */
  keepAlive: boolean;
}

/**
 * A response whose header lines are turned into an object only when `headers` is first read: the
 * purchase path reads three headers of the fifteen the API sends, by `header(name)`.
 */
export class ParsedAnswer implements ParsedResponse {
  private parsed?: Record<string, string>;

  constructor(
    readonly status: number,
    /** The head's header lines (after the status line), as sent and lower-cased. */
    private readonly lines: string,
    private readonly lowerLines: string,
    readonly body: string,
    readonly keepAlive: boolean,
  ) {}

  get headers(): Record<string, string> {
    return (this.parsed ??= parseHeaderLines(this.lines));
  }

  /** One header's value (`name` lower-case), repeated ones joined as in `headers`. */
  header(name: string): string | undefined {
    return this.parsed ? this.parsed[name] : headerIn(this.lines, this.lowerLines, name);
  }
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
/** A head larger than this is not an answer from the API: refuse it rather than buffer it. */
const MAX_HEAD_BYTES = 64 * 1024;

/**
 * Reads one HTTP/1.1 response at a time from a socket's bytes: the status line and headers, then a
 * body framed by Content-Length, by chunks, or (neither) by the end of the stream. Names are kept
 * lower-case, repeated headers joined with ", " as node:http does.
 */
export class ResponseParser {
  private buffered: Buffer = Buffer.alloc(0);
  private head?: { status: number; lines: string; lowerLines: string; keepAlive: boolean };
  private framing: 'length' | 'chunked' | 'close' | 'none' = 'none';
  private bodyLength = 0;
  private body: Buffer[] = [];
  private result?: ParsedAnswer;

  push(chunk: Buffer): ParseState {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    if (!this.head) {
      const end = this.buffered.indexOf(HEAD_END);
      if (end < 0) return this.buffered.length > MAX_HEAD_BYTES ? 'error' : 'more';
      if (!this.readHead(this.buffered.toString('latin1', 0, end))) return 'error';
      this.buffered = this.buffered.subarray(end + HEAD_END.length);
    }
    return this.readBody();
  }

  /** The stream ended: a body framed by the end is complete; any other unfinished answer is not. */
  endOfStream(): ParseState {
    if (this.head && this.framing === 'close') {
      this.body.push(this.buffered);
      this.finish(false);
      return 'done';
    }
    return 'error';
  }

  /** The finished response as plain data; the parser is ready for the next one. */
  take(): ParsedResponse {
    const { status, headers, body, keepAlive } = this.takeAnswer();
    return { status, headers, body, keepAlive };
  }

  /** The finished response, its headers read when asked for; the parser is ready for the next one. */
  takeAnswer(): ParsedAnswer {
    const result = this.result as ParsedAnswer;
    this.result = undefined;
    return result;
  }

  /**
   * The status line, every header line checked for its colon, and the three headers that frame the
   * body looked up; the rest wait until an answer's `headers` are read.
   */
  private readHead(text: string): boolean {
    const statusLine = /^HTTP\/1\.([01]) (\d{3})/.exec(text);
    if (!statusLine) return false;
    const firstBreak = text.indexOf('\r\n');
    let at = firstBreak;
    while (at >= 0) {
      const start = at + 2;
      at = text.indexOf('\r\n', start);
      const end = at < 0 ? text.length : at;
      const colon = text.indexOf(':', start);
      if (colon <= start || colon > end) return false;
    }
    // Each header line begins with CRLF, the first one included, so a name is found as "\r\n<name>:".
    const lines = firstBreak < 0 ? '' : text.slice(firstBreak);
    const lowerLines = lines.toLowerCase();
    const status = Number(statusLine[2]);
    const connection = headerIn(lines, lowerLines, 'connection')?.toLowerCase() ?? '';
    const keepAlive = statusLine[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    this.head = { status, lines, lowerLines, keepAlive };
    const contentLength = headerIn(lines, lowerLines, 'content-length');
    if (status === 204 || status === 304 || status < 200) this.framing = 'none';
    else if (headerIn(lines, lowerLines, 'transfer-encoding')?.toLowerCase().includes('chunked'))
      this.framing = 'chunked';
    else if (contentLength !== undefined) {
      this.framing = 'length';
      this.bodyLength = Number(contentLength);
      if (!Number.isSafeInteger(this.bodyLength) || this.bodyLength < 0) return false;
    } else this.framing = 'close';
    return true;
  }

  private readBody(): ParseState {
    if (this.framing === 'none') return this.finish(true);
    if (this.framing === 'close') return 'more';
    if (this.framing === 'length') {
      if (this.buffered.length < this.bodyLength) return 'more';
      this.body.push(this.buffered.subarray(0, this.bodyLength));
      this.buffered = this.buffered.subarray(this.bodyLength);
      return this.finish(true);
    }
    return this.readChunks();
  }

  /** Chunks as they are complete: size line, data, CRLF; a zero size (and its trailer's CRLF) ends the body. */
  private readChunks(): ParseState {
    for (;;) {
      const lineEnd = this.buffered.indexOf(CRLF);
      if (lineEnd < 0) return 'more';
      const size = parseInt(this.buffered.toString('latin1', 0, lineEnd), 16);
      if (!Number.isSafeInteger(size) || size < 0) return 'error';
      if (size === 0) {
        // No trailers from the API: the last chunk is "0\r\n\r\n".
        if (this.buffered.length < lineEnd + 4) return 'more';
        this.buffered = this.buffered.subarray(lineEnd + 4);
        return this.finish(true);
      }
      const dataEnd = lineEnd + 2 + size;
      if (this.buffered.length < dataEnd + 2) return 'more';
      this.body.push(this.buffered.subarray(lineEnd + 2, dataEnd));
      this.buffered = this.buffered.subarray(dataEnd + 2);
    }
  }

  private finish(framed: boolean): 'done' {
    const head = this.head as NonNullable<ResponseParser['head']>;
    const body = this.body.length === 1 ? this.body[0].toString('utf8') : Buffer.concat(this.body).toString('utf8');
    // Bytes beyond the answer would belong to no request (no pipelining): the socket is not reused.
    const keepAlive = framed && head.keepAlive && this.buffered.length === 0;
    this.result = new ParsedAnswer(head.status, head.lines, head.lowerLines, body, keepAlive);
    this.head = undefined;
    this.body = [];
    this.buffered = Buffer.alloc(0);
    return 'done';
  }
}

/** Every header line as an object: names lower-cased, values trimmed, repeated names joined with ", ". */
function parseHeaderLines(lines: string): Record<string, string> {
  const headers: Record<string, string> = {};
  let at = lines.indexOf('\r\n');
  while (at >= 0) {
    const start = at + 2;
    at = lines.indexOf('\r\n', start);
    const end = at < 0 ? lines.length : at;
    const colon = lines.indexOf(':', start);
    const name = lines.slice(start, colon).toLowerCase();
    const value = lines.slice(colon + 1, end).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** One header's value from the header lines, found in their lower-cased copy; as `parseHeaderLines` would give it. */
function headerIn(lines: string, lowerLines: string, name: string): string | undefined {
  const needle = `\r\n${name}:`;
  let value: string | undefined;
  for (let at = lowerLines.indexOf(needle); at >= 0;) {
    const start = at + needle.length;
    const end = lowerLines.indexOf('\r\n', start);
    const found = lines.slice(start, end < 0 ? lines.length : end).trim();
    value = value === undefined ? found : `${value}, ${found}`;
    at = end < 0 ? -1 : lowerLines.indexOf(needle, end);
  }
  return value;
}
