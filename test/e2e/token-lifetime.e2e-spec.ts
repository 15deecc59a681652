import { createHmac } from 'node:crypto';
import { AppHarness, startApp, TEST_JWT_SECRET } from '../support/app-harness';

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');
const nowS = () => Math.floor(Date.now() / 1000);
const DAY_S = 86_400;

/** An HS256 token signed with the test secret carrying exactly `claims` (no iat or exp added). */
function hs256(claims: Record<string, unknown>, secret = TEST_JWT_SECRET): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify({ sub: 'lifetime-user', ...claims }));
  return `${head}.${body}.${b64url(createHmac('sha256', secret).update(`${head}.${body}`).digest())}`;
}

async function answer(harness: AppHarness, token: string): Promise<{ status: number; message?: string }> {
  const res = await harness.app.inject({ method: 'GET', url: '/orders', headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, message: res.statusCode === 200 ? undefined : (res.json() as { message: string }).message };
}

describe('how long a token may live (JWT_MAX_AGE_S, 24 h by default)', () => {
  let harness: AppHarness;
  beforeAll(async () => {
    harness = await startApp({ AUTH_FAILURES_PER_SECOND: '100000' });
  });
  afterAll(() => harness.close());

  it('refuses a token valid for ten years, though its signature and exp are fine', async () => {
    const now = nowS();
    expect(await answer(harness, hs256({ iat: now, exp: now + 10 * 365 * DAY_S }))).toEqual({ status: 401, message: 'token lifetime (exp - iat) is longer than this API accepts' });
    expect((await answer(harness, hs256({ iat: now, exp: now + DAY_S + 1 }))).status).toBe(401);
    expect((await answer(harness, hs256({ iat: now, exp: now + DAY_S }))).status).toBe(200);
  });

  it('refuses a token without iat (its lifetime cannot be judged), and one issued in the future', async () => {
    const now = nowS();
    expect((await answer(harness, hs256({ exp: now + 3600 }))).status).toBe(401);
    // exp - iat is an hour, but it is valid for a year from now.
    expect(await answer(harness, hs256({ iat: now + 365 * DAY_S, exp: now + 365 * DAY_S + 3600 }))).toEqual({ status: 401, message: 'token issued in the future' });
    expect((await answer(harness, hs256({ iat: now + 20, exp: now + 3600 }))).status).toBe(200); // within the 30 s leeway
  });

  it('follows JWT_MAX_AGE_S when it is set shorter', async () => {
    const short = await startApp({ JWT_MAX_AGE_S: '3600' });
    try {
      const now = nowS();
      expect((await answer(short, hs256({ iat: now, exp: now + 7200 }))).status).toBe(401);
      expect((await answer(short, hs256({ iat: now, exp: now + 3600 }))).status).toBe(200);
    } finally {
      await short.close();
    }
  });
});

describe('HS256 with JWT_AUDIENCE (what production requires): a token of another environment sharing the secret', () => {
  let harness: AppHarness;
  beforeAll(async () => {
    harness = await startApp({ JWT_AUDIENCE: 'flash-sale-prod', AUTH_FAILURES_PER_SECOND: '100000' });
  });
  afterAll(() => harness.close());

  it('is refused when it names another audience or none; one naming this API is accepted', async () => {
    const now = nowS();
    const lifetime = { iat: now, exp: now + 3600, role: 'admin' };
    expect((await answer(harness, hs256({ ...lifetime, aud: 'flash-sale-staging' }))).status).toBe(401);
    expect((await answer(harness, hs256(lifetime))).status).toBe(401);
    expect((await answer(harness, hs256({ ...lifetime, aud: 'flash-sale-prod' }))).status).toBe(200);
  });
});
