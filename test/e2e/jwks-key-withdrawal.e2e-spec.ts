import { Logger } from '@nestjs/common';
import { AppHarness, startApp } from '../support/app-harness';
import { claimsFor, JwksServer, SigningKey, signingKey, signJwt } from '../support/identity-provider';

jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tokenWith = (key: SigningKey): string => signJwt(key, claimsFor(`user-of-${key.kid}`));

async function statusWith(harness: AppHarness, token: string): Promise<number> {
  return (await harness.app.inject({ method: 'GET', url: '/orders', headers: { authorization: `Bearer ${token}` } }))
    .statusCode;
}

/** How long it took `condition` to hold, polling every 100 ms; throws past `withinMs`. */
async function timeUntil(condition: () => Promise<boolean>, withinMs: number): Promise<number> {
  const startedAt = Date.now();
  while (!(await condition())) {
    if (Date.now() - startedAt > withinMs) throw new Error(`not within ${withinMs} ms`);
    await sleep(100);
  }
  return Date.now() - startedAt;
}

/** A sample of the app's /metrics (0 when the series is absent). */
async function metric(harness: AppHarness, series: string): Promise<number> {
  const text = (await harness.app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('a key the identity provider withdraws (JWT_JWKS_REFRESH_S)', () => {
  const a = signingKey('key-a', 'RS256');
  const b = signingKey('key-b', 'ES256');
  let idp: JwksServer;
  let harness: AppHarness | undefined;

  beforeEach(async () => {
    idp = await JwksServer.start([a, b]);
  });
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    await idp.close();
  });
  const start = async (env: Record<string, string>) => {
    harness = await startApp({ JWT_JWKS_URL: idp.url, AUTH_FAILURES_PER_SECOND: '100000', ...env });
    return harness;
  };

  it('verifies nothing signed with it one interval later, remembered tokens included; the other key still verifies', async () => {
    const app = await start({ JWT_JWKS_REFRESH_S: '1' });
    const remembered = tokenWith(a);
    expect(await statusWith(app, remembered)).toBe(200);
    expect(await statusWith(app, tokenWith(b))).toBe(200);

    idp.keys = [b];
    // One interval (1 s) and a read later, the token verified before is refused.
    await timeUntil(async () => (await statusWith(app, remembered)) === 401, 2500);
    expect(await statusWith(app, tokenWith(a))).toBe(401);
    expect(await statusWith(app, tokenWith(b))).toBe(200);
  });

  it("reads the set again sooner when the provider's Cache-Control max-age is shorter (honoured down to 5 s)", async () => {
    idp.cacheControl = 'public, max-age=1';
    const app = await start({ JWT_JWKS_REFRESH_S: '300' });
    const startupReadAt = idp.lastRequestAt;
    const remembered = tokenWith(a);
    expect(await statusWith(app, remembered)).toBe(200);

    idp.keys = [b];
    await timeUntil(async () => idp.requests === 2, 8000);
    const secondReadAfterMs = idp.lastRequestAt - startupReadAt;
    expect(secondReadAfterMs).toBeGreaterThanOrEqual(4900);
    expect(secondReadAfterMs).toBeLessThan(7000);
    await timeUntil(async () => (await statusWith(app, remembered)) === 401, 1000);
    expect(await statusWith(app, tokenWith(b))).toBe(200);
  });

  it('keeps the last good set while the provider fails, for 3 intervals, saying so in a log line and a metric; then refuses its tokens until a read succeeds', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const error = jest.spyOn(Logger.prototype, 'error');
    try {
      const app = await start({ JWT_JWKS_REFRESH_S: '1' });
      const remembered = tokenWith(a);
      expect(await statusWith(app, remembered)).toBe(200);
      const failedBefore = await metric(app, 'auth_jwks_reads_total{result="failed"}');

      idp.failing = true;
      const lastGoodReadAt = idp.lastRequestAt;
      await timeUntil(async () => (await metric(app, 'auth_jwks_reads_total{result="failed"}')) > failedBefore, 2500);
      // Within its 3 s the last good set still verifies, remembered and new tokens alike.
      expect(await statusWith(app, remembered)).toBe(200);
      expect(await statusWith(app, tokenWith(a))).toBe(200);
      expect(warn.mock.calls.map(([line]) => String(line)).join('\n')).toMatch(
        /keeping the key set read \d+ s ago; its keys stop verifying tokens once it is 3 s old/,
      );
      expect(await metric(app, 'auth_jwks_keys')).toBe(2);

      await timeUntil(async () => (await statusWith(app, remembered)) === 401, 5000);
      expect(Date.now() - lastGoodReadAt).toBeGreaterThanOrEqual(3000);
      expect(await statusWith(app, tokenWith(b))).toBe(401);
      await timeUntil(async () => (await metric(app, 'auth_jwks_keys')) === 0, 2000);
      expect(error.mock.calls.map(([line]) => String(line)).join('\n')).toMatch(
        /the key set is \d+ s old, past 3 s: dropped; tokens of the identity provider are refused until a read succeeds/,
      );

      idp.failing = false;
      await timeUntil(async () => (await statusWith(app, tokenWith(b))) === 200, 2500);
      expect(await metric(app, 'auth_jwks_keys')).toBe(2);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});
