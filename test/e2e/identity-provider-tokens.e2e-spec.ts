import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppHarness, startApp, TEST_JWT_SECRET } from '../support/app-harness';
import { claimsFor, JwksServer, publicPem, signingKey, signJwt } from '../support/identity-provider';
import { testOutputDir } from '../support/test-output';

const ISSUER = 'https://idp.shop.test/';
const AUDIENCE = 'flash-sale-api';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** An HS256 token for `idp-user` signed with `secret`, carrying `claims` and an hour of validity. */
function hs256(secret: string, claims: Record<string, unknown>): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify(claimsFor('idp-user', claims)));
  return `${head}.${body}.${b64url(createHmac('sha256', secret).update(`${head}.${body}`).digest())}`;
}

async function statusWith(harness: AppHarness, token: string): Promise<number> {
  return (await harness.app.inject({ method: 'GET', url: '/orders', headers: { authorization: `Bearer ${token}` } })).statusCode;
}

describe('tokens from an identity provider (JWT_JWKS_URL)', () => {
  const first = signingKey('key-1', 'RS256');
  const rotated = signingKey('key-2', 'ES256');
  let idp: JwksServer;
  let harness: AppHarness;
  const ok = (key = first, extra: Record<string, unknown> = {}) => signJwt(key, claimsFor('idp-user', { iss: ISSUER, aud: AUDIENCE, ...extra }));

  beforeAll(async () => {
    idp = await JwksServer.start([first]);
    harness = await startApp({ JWT_JWKS_URL: idp.url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, AUTH_FAILURES_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await harness.close();
    await idp.close();
  });

  it('reads the key set at start-up and accepts a token signed with one of its keys', async () => {
    expect(idp.requests).toBe(1);
    expect(await statusWith(harness, ok())).toBe(200);
  });

  it('checks iss, aud and exp (with 30 s of leeway), and refuses a token without exp', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await statusWith(harness, ok(first, { iss: 'https://evil.test/' }))).toBe(401);
    expect(await statusWith(harness, ok(first, { aud: 'another-api' }))).toBe(401);
    expect(await statusWith(harness, ok(first, { exp: now - 120 }))).toBe(401);
    expect(await statusWith(harness, ok(first, { exp: now - 10 }))).toBe(200);
    expect(await statusWith(harness, signJwt(first, { sub: 'forever', iss: ISSUER, aud: AUDIENCE }))).toBe(401);
  });

  it('requires the configured iss and aud: a token the same provider signed without either is 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await statusWith(harness, signJwt(first, { sub: 'no-aud', role: 'admin', iss: ISSUER, exp: now + 600 }))).toBe(401);
    expect(await statusWith(harness, signJwt(first, { sub: 'no-iss', role: 'admin', aud: AUDIENCE, exp: now + 600 }))).toBe(401);
    const res = await harness.app.inject({
      method: 'POST',
      url: '/admin/products',
      headers: { authorization: `Bearer ${signJwt(first, { sub: 'other-client', role: 'admin', iss: ISSUER, exp: now + 600 })}` },
      payload: { sku: 'NO-AUD', name: 'x', priceCents: 1, stock: 1 },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await statusWith(harness, signJwt(first, { sub: 'both', iss: ISSUER, aud: [AUDIENCE, 'another-api'], iat: now, exp: now + 600 }))).toBe(200);
  });

  it('takes no HS256 token beside the provider unless JWT_ALLOW_HS256=true', async () => {
    expect(await statusWith(harness, hs256(TEST_JWT_SECRET, { iss: ISSUER, aud: AUDIENCE }))).toBe(401);
    const both = await startApp({ JWT_JWKS_URL: idp.url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, JWT_ALLOW_HS256: 'true', AUTH_FAILURES_PER_SECOND: '100000' });
    try {
      expect(await statusWith(both, hs256(TEST_JWT_SECRET, { iss: ISSUER, aud: AUDIENCE }))).toBe(200);
      // The same claim rules for HS256: iss and aud required.
      expect(await statusWith(both, hs256(TEST_JWT_SECRET, { iss: ISSUER }))).toBe(401);
    } finally {
      await both.close();
    }
  });

  it('pins the algorithm to the key: none, and a key used with another alg, are refused', async () => {
    const claims = claimsFor('attacker', { iss: ISSUER, aud: AUDIENCE, role: 'admin' });
    const unsigned = `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT', kid: 'key-1' }))}.${b64url(JSON.stringify(claims))}.`;
    expect(await statusWith(harness, unsigned)).toBe(401);
    const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'key-1' }));
    const body = b64url(JSON.stringify(claims));
    const hmacWithPublicKey = `${header}.${body}.${b64url(createHmac('sha256', publicPem(first)).update(`${header}.${body}`).digest())}`;
    expect(await statusWith(harness, hmacWithPublicKey)).toBe(401);
  });

  it('accepts a key that appears after rotation once the set is read again', async () => {
    idp.keys = [first, rotated];
    const before = idp.requests;
    expect(await statusWith(harness, ok(rotated))).toBe(200);
    expect(idp.requests).toBe(before + 1);
    expect(await statusWith(harness, ok(rotated))).toBe(200);
    expect(idp.requests).toBe(before + 1);
  });

  it('picks up a second rotation only 10 s after the last read', async () => {
    const third = signingKey('key-3', 'RS256');
    idp.keys = [first, rotated, third];
    expect(await statusWith(harness, ok(third))).toBe(401);
    await sleep(Math.max(0, idp.lastRequestAt + 10_200 - Date.now()));
    expect(await statusWith(harness, ok(third))).toBe(200);
  }, 20_000);

  it('reads the set at most once per 10 s however many unknown kids arrive', async () => {
    // A fixed flood, signed up front: 240 distinct unknown kids in 12 waves, however slow the box.
    const waves = Array.from({ length: 12 }, (_, w) =>
      Array.from({ length: 20 }, (_, i) => signJwt({ ...first, kid: `made-up-${w}-${i}` }, claimsFor('x', { iss: ISSUER, aud: AUDIENCE }))),
    );
    const before = idp.requests;
    const startedAt = Date.now();
    const statuses: number[] = [];
    for (const wave of waves) {
      statuses.push(...(await Promise.all(wave.map((token) => statusWith(harness, token)))));
      await sleep(100); // spread over more than a second, as a real flood would be
    }
    const elapsedMs = Date.now() - startedAt;
    expect(new Set(statuses)).toEqual(new Set([401]));
    // One read may open the flood; another only each full 10 s later (a slow run may span one).
    expect(idp.requests - before).toBeLessThanOrEqual(1 + Math.floor(elapsedMs / 10_000));
  }, 30_000);

  it('stops trusting a token it verified once its key leaves the key set (read again)', async () => {
    const retiring = signingKey('key-retiring', 'RS256');
    idp.keys = [...idp.keys, retiring];
    await sleep(Math.max(0, idp.lastRequestAt + 10_200 - Date.now()));
    const remembered = ok(retiring);
    expect(await statusWith(harness, remembered)).toBe(200); // read the set, verified, remembered
    // The provider drops the key (say it leaked); the next unknown kid makes the API read the set again.
    idp.keys = idp.keys.filter((key) => key !== retiring);
    await sleep(Math.max(0, idp.lastRequestAt + 10_200 - Date.now()));
    const reads = idp.requests;
    expect(await statusWith(harness, ok(signingKey('key-unknown', 'ES256')))).toBe(401);
    expect(idp.requests).toBe(reads + 1);
    expect(await statusWith(harness, remembered)).toBe(401);
  }, 40_000);
});

describe('tokens checked with a PEM public key (JWT_PUBLIC_KEY_FILE)', () => {
  const key = signingKey('unused', 'ES256');
  const other = signingKey('other', 'ES256');
  let harness: AppHarness;

  beforeAll(async () => {
    const file = join(testOutputDir('pem'), 'idp.pem');
    writeFileSync(file, publicPem(key));
    harness = await startApp({ JWT_PUBLIC_KEY_FILE: file, AUTH_FAILURES_PER_SECOND: '100000' });
  });
  afterAll(() => harness.close());

  it('accepts ES256 tokens signed with the key, with or without a kid', async () => {
    expect(await statusWith(harness, signJwt(key, claimsFor('pem-user')))).toBe(200);
    expect(await statusWith(harness, signJwt({ algorithm: 'ES256', privateKey: key.privateKey }, claimsFor('pem-user')))).toBe(200);
  });

  it('refuses another key, another algorithm, and an HS256 token whose secret is the public key', async () => {
    expect(await statusWith(harness, signJwt(other, claimsFor('pem-user')))).toBe(401);
    expect(await statusWith(harness, signJwt(signingKey('rsa', 'RS256'), claimsFor('pem-user')))).toBe(401);
    const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const body = b64url(JSON.stringify(claimsFor('attacker', { role: 'admin' })));
    const confused = `${header}.${body}.${b64url(createHmac('sha256', publicPem(key)).update(`${header}.${body}`).digest())}`;
    const res = await harness.app.inject({ method: 'POST', url: '/admin/products', headers: { authorization: `Bearer ${confused}` }, payload: { sku: 'X', name: 'x', priceCents: 1, stock: 1 } });
    expect(res.statusCode).toBe(401);
  });
});
