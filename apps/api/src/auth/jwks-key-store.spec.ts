import { generateKeyPairSync } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JwksKeyStore } from './jwks-key-store';

const jwkOf = (kid: string, extra: Record<string, unknown> = {}) => ({
  ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
  kid,
  ...extra,
});

interface Answer {
  body: unknown;
  /** Never answers. */
  hang?: boolean;
  /** Sent as Cache-Control. */
  cacheControl?: string;
  /** Answers 302 to this address. */
  redirectTo?: string;
  /** Streams this many bytes of JSON-looking padding without a content-length, counting what it wrote. */
  endless?: { bytes: number; written: number };
}

/** A key-set endpoint whose answer the test sets. */
async function keySetServer(): Promise<{
  url: string;
  answer: Answer;
  requests: () => number;
  close: () => Promise<void>;
}> {
  const answer: Answer = { body: { keys: [] } };
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    requests++;
    if (answer.hang) return;
    if (answer.redirectTo) return res.writeHead(302, { location: answer.redirectTo }).end();
    const endless = answer.endless;
    if (endless) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = (): void => {
        while (endless.written < endless.bytes && !res.destroyed) {
          endless.written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    if (answer.cacheControl) res.setHeader('cache-control', answer.cacheControl);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    answer,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('JwksKeyStore', () => {
  let idp: Awaited<ReturnType<typeof keySetServer>>;
  let clock: number;
  beforeEach(async () => {
    idp = await keySetServer();
    clock = 1_000_000;
  });
  afterEach(() => idp.close());
  const store = (options = {}) => new JwksKeyStore(idp.url, { now: () => clock, fetchTimeoutMs: 3000, ...options });

  it('holds the signing keys of the set by kid, with the algorithm their type allows', async () => {
    idp.answer.body = {
      keys: [
        jwkOf('a'),
        jwkOf('enc', { use: 'enc' }),
        jwkOf('wrong-alg', { alg: 'RS256' }),
        { kty: 'oct', k: 'c2VjcmV0', kid: 'hmac' },
      ],
    };
    const keys = store();
    await keys.refresh();
    expect(keys.keyFor('a')).toMatchObject({ algorithm: 'ES256', pem: expect.stringContaining('BEGIN PUBLIC KEY') });
    for (const kid of ['enc', 'wrong-alg', 'hmac', 'unknown']) expect(keys.keyFor(kid)).toBeUndefined();
  });

  it('reads the set again only after the minimum interval, sharing one read between callers', async () => {
    const keys = store({ minRefetchMs: 10_000 });
    await Promise.all([keys.refresh(), keys.refresh(), keys.refresh()]);
    expect(idp.requests()).toBe(1);
    clock += 9_999;
    await keys.refresh();
    expect(idp.requests()).toBe(1);
    clock += 1;
    await keys.refresh();
    expect(idp.requests()).toBe(2);
  });

  it('lets the first refetch follow the start-up read at once', async () => {
    const keys = store({ minRefetchMs: 10_000 });
    await keys.load();
    await keys.refresh();
    await keys.refresh();
    expect(idp.requests()).toBe(2);
  });

  it('refuses a set with too many keys and keeps what it had', async () => {
    idp.answer.body = { keys: [jwkOf('a')] };
    const keys = store({ maxKeys: 3, minRefetchMs: 0 });
    await keys.refresh();
    idp.answer.body = { keys: [jwkOf('b'), jwkOf('c'), jwkOf('d'), jwkOf('e')] };
    await keys.refresh();
    expect(keys.keyFor('a')).toBeDefined();
    expect(keys.keyFor('b')).toBeUndefined();
  });

  it('replaces the whole set on each read: a key the provider withdrew is gone', async () => {
    idp.answer.body = { keys: [jwkOf('a'), jwkOf('b')] };
    const keys = store();
    await keys.load();
    idp.answer.body = { keys: [jwkOf('b')] };
    await keys.load();
    expect(keys.keyFor('a')).toBeUndefined();
    expect(keys.keyFor('b')).toBeDefined();
  });

  it('keeps the last good set through failed reads for maxStaleMs, then holds no key at all', async () => {
    idp.answer.body = { keys: [jwkOf('a')] };
    const keys = store({ maxStaleMs: 60_000, fetchTimeoutMs: 200 });
    expect(await keys.load()).toBe(true);
    idp.answer.hang = true;
    clock += 60_000;
    expect(await keys.load()).toBe(false);
    expect(keys.keyFor('a')).toBeDefined();
    expect(keys.keyFor(undefined)).toBeDefined();
    clock += 1;
    expect(keys.keyFor('a')).toBeUndefined();
    expect(keys.keyFor(undefined)).toBeUndefined();
  });

  it('remembers how long the provider says its answer stays fresh', async () => {
    const keys = store();
    for (const [header, ms] of [
      ['public, max-age=120, must-revalidate', 120_000],
      ['no-cache', 0],
      [undefined, undefined],
    ] as const) {
      idp.answer.cacheControl = header;
      await keys.load();
      expect(keys.freshForMs).toBe(ms);
    }
  });

  it('gives up on a provider that does not answer within the fetch timeout', async () => {
    idp.answer.hang = true;
    const keys = store({ fetchTimeoutMs: 200 });
    const startedAt = Date.now();
    await keys.refresh();
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(keys.keyFor('a')).toBeUndefined();
  });

  it('follows no redirect, to http: or anywhere else', async () => {
    const elsewhere = await keySetServer();
    try {
      elsewhere.answer.body = { keys: [jwkOf('a')] };
      idp.answer.redirectTo = elsewhere.url;
      const keys = store();
      await keys.refresh();
      expect(elsewhere.requests()).toBe(0);
      expect(keys.keyFor('a')).toBeUndefined();
    } finally {
      await elsewhere.close();
    }
  });

  it('stops reading a body past its size limit instead of reading it whole', async () => {
    idp.answer.endless = { bytes: 64 * 1024 * 1024, written: 0 };
    const keys = store({ maxBytes: 64 * 1024, fetchTimeoutMs: 5000 });
    await keys.refresh();
    expect(keys.keyFor('a')).toBeUndefined();
    // The connection was dropped soon after the limit: the server got nowhere near its 64 MB.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(idp.answer.endless.written).toBeLessThan(16 * 1024 * 1024);
  });
});
