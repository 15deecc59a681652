import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { PUBLISHED_SECRETS } from '../../apps/api/src/config/published-secrets';
import { freePort } from '../support/free-port';
import { RedisServerProcess } from '../support/redis-server';
import { createOwnerRole, createTestDatabase, TestDatabase } from '../support/test-database';
import { testOutputDir } from '../support/test-output';
import { token } from '../support/tokens';

jest.setTimeout(60_000);

const entry = resolve('dist/apps/api/main.js');
const EXAMPLE = resolve('.env.example');
const AUDIENCE = 'flash-sale-api';
/** 40 bytes, yet one pair repeated: guessable. */
const PATTERNED = 'ab'.repeat(20);
/** 32+ bytes that passed the old length-times-character-entropy check: a word repeated, a keyboard walk, a published value with a suffix. */
const WORDS_AND_WALKS = ['passwordpasswordpasswordpassword1', 'qwertyuiopasdfghjklzxcvbnm123456', 'dev-only-secret-change-me-please!!'];
const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** An HS256 token for an hour, with `claims` (an `aud` among them, or not). */
function hs256(secret: string, claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify({ iat: now, exp: now + 3600, ...claims }));
  return `${head}.${body}.${b64url(createHmac('sha256', secret).update(`${head}.${body}`).digest())}`;
}

/** The environment of a plain `node main.js` on a server: no NODE_ENV and none of the app's variables, only the machine's. */
function serverEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}

/** A folder holding `.env` with this text, as an operator's deploy folder would. */
function deployFolder(name: string, envText: string): string {
  const dir = testOutputDir(`deploy-${name}`);
  writeFileSync(join(dir, '.env'), envText);
  return dir;
}

/** `.env.example`, with some of its lines set to other values (`NAME=value`). */
function exampleWith(values: Record<string, string>): string {
  return readFileSync(EXAMPLE, 'utf8')
    .split('\n')
    .map((line) => {
      const name = /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1];
      return name && name in values ? `${name}=${values[name]}` : line;
    })
    .join('\n');
}

/** Starts the built app in `cwd`; resolves once /health answers, or with the exit code. */
async function startIn(cwd: string, env: NodeJS.ProcessEnv, port: number): Promise<{ child: ChildProcess; exited?: number; stdout: () => string; stderr: () => string }> {
  const child = spawn(process.execPath, [entry], { cwd, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const result = { child, stdout: () => stdout, stderr: () => stderr } as { child: ChildProcess; exited?: number; stdout: () => string; stderr: () => string };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return { ...result, exited: child.exitCode };
    const up = await fetch(`http://127.0.0.1:${port}/health/live`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) return result;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the app neither started nor exited: ${stderr}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe('an instance started from a folder holding a copy of .env.example (no NODE_ENV in its environment)', () => {
  beforeAll(() => {
    if (!existsSync(entry)) throw new Error('build first: npm run build (npm test does it)');
  });

  it('refuses to start: the placeholders stop it, with one line naming the variable', () => {
    const dir = testOutputDir('deploy-example');
    copyFileSync(EXAMPLE, join(dir, '.env'));
    const result = spawnSync(process.execPath, [entry], { cwd: dir, env: serverEnvironment(), encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Invalid configuration: [A-Z_]+ still holds the placeholder <[^>]+> from \.env\.example/);
    expect(result.stdout).toMatch(/^configuration: \.env set /);
    expect(result.stdout).not.toMatch(/listening/);
  });

  it.each(PUBLISHED_SECRETS.filter((secret) => Buffer.byteLength(secret) >= 32))(
    'refuses to start with the secret %s from the repository, even with NODE_ENV=development written in the file',
    (secret) => {
      const dir = deployFolder('published', `NODE_ENV=development\n${exampleWith({ JWT_SECRET: secret, DATABASE_URL: 'postgres://shop:own-password@127.0.0.1:5432/shop', REDIS_URL: 'redis://:own-password@127.0.0.1:6379' })}`);
      const result = spawnSync(process.execPath, [entry], { cwd: dir, env: serverEnvironment(), encoding: 'utf8', timeout: 20_000 });
      expect(result.status).toBe(1);
      expect(result.stderr.trim()).toMatch(/^Invalid configuration: JWT_SECRET is a value published in this repository/);
      expect(result.stdout).toMatch(/NODE_ENV ignored \(only the environment sets it\)/);
    },
  );

  describe('filled in by an operator who also wrote NODE_ENV=development in it', () => {
    const secret = randomBytes(32).toString('hex');
    let db: TestDatabase;
    let redis: RedisServerProcess;
    let owner: Awaited<ReturnType<typeof createOwnerRole>>;
    let app: Awaited<ReturnType<typeof startIn>>;
    let port: number;
    let metricsPort: number;
    let filled: Record<string, string>;

    beforeAll(async () => {
      [db, redis] = await Promise.all([createTestDatabase(), RedisServerProcess.start(['--requirepass', randomBytes(16).toString('hex')])]);
      owner = await createOwnerRole(db.url);
      [port, metricsPort] = [await freePort(), await freePort()];
      // The balancer is named by its address (TRUST_PROXY); this test is not it, so its X-Forwarded-For is not believed.
      filled = { JWT_SECRET: secret, JWT_AUDIENCE: AUDIENCE, DATABASE_URL: owner.url, REDIS_URL: redis.url, TRUST_PROXY: '10.1.2.3' };
      const dir = deployFolder('filled', `NODE_ENV=development\n${exampleWith({ ...filled, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn' })}`);
      app = await startIn(dir, serverEnvironment(), port);
      if (app.exited !== undefined) throw new Error(`exited ${app.exited}: ${app.stderr()}`);
    });
    afterAll(async () => {
      if (app) await stop(app.child);
      await redis?.stop();
      await db?.drop();
      await owner?.dropRole();
    });

    it('runs in production: a token signed with any secret written in the repository is 401', async () => {
      for (const secret of PUBLISHED_SECRETS) {
        const res = await fetch(`http://127.0.0.1:${port}/orders`, { headers: { authorization: `Bearer ${token('forger', 'admin', secret)}` } });
        expect(`${secret}: ${res.status}`).toBe(`${secret}: 401`);
      }
    });

    it('takes a token with its own secret only when it names this API (JWT_AUDIENCE): not one minted for another environment', async () => {
      const orders = (claims: Record<string, unknown>) => fetch(`http://127.0.0.1:${port}/orders`, { headers: { authorization: `Bearer ${hs256(secret, claims)}` } }).then((res) => res.status);
      expect(await orders({ sub: 'staging-admin', role: 'admin' })).toBe(401);
      expect(await orders({ sub: 'staging-admin', role: 'admin', aud: 'flash-sale-staging' })).toBe(401);
      expect(await orders({ sub: 'shop-admin', role: 'admin', aud: AUDIENCE })).toBe(200);
    });

    it('counts a client that rotates X-Forwarded-For as the one address it is (TRUST_PROXY names the balancer only)', async () => {
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          fetch(`http://127.0.0.1:${port}/orders`, { headers: { authorization: `Bearer ${token(`rotating-${i}`, 'user', secret)}`, 'x-forwarded-for': `203.0.113.${i}` } }).then((res) => res.status),
        ),
      );
      // AUTH_FAILURES_PER_SECOND is 20, and the burst spans two windows at most.
      expect(answers.filter((status) => status === 429).length).toBeGreaterThanOrEqual(20);
      expect(answers.every((status) => status === 401 || status === 429)).toBe(true);
    });

    it.each<[string, Record<string, string>, RegExp]>([
      ['TRUST_PROXY', { TRUST_PROXY: '0.0.0.0/1,128.0.0.0/1' }, /^Invalid configuration: TRUST_PROXY entry 0\.0\.0\.0\/1 lets any client choose the address/],
      ['TRUST_PROXY', { TRUST_PROXY: '1' }, /^Invalid configuration: TRUST_PROXY as a hop count lets any client choose/],
      ['TRUST_PROXY', { TRUST_PROXY: 'uniquelocal' }, /^Invalid configuration: TRUST_PROXY entry uniquelocal/],
      ['REDIS_URL', { REDIS_URL: 'redis://127.0.0.1:6379' }, /^Invalid configuration: REDIS_URL reaches a Redis without a password, refused when NODE_ENV=production/],
      ['JWT_AUDIENCE', { JWT_AUDIENCE: '' }, /^Invalid configuration: JWT_AUDIENCE is required when NODE_ENV=production/],
      ['JWT_SECRET', { JWT_SECRET: PATTERNED }, /^Invalid configuration: JWT_SECRET is guessable/],
      // The estimator's dictionaries load in the bundle, when a production start-up needs them.
      ...WORDS_AND_WALKS.map((value): [string, Record<string, string>, RegExp] => ['JWT_SECRET', { JWT_SECRET: value }, /^Invalid configuration: JWT_SECRET is guessable: .* generate one \(openssl rand -hex 32\)$/]),
      ['PAYMENT_WEBHOOK_SECRET', { PAYMENT_WEBHOOK_SECRET: WORDS_AND_WALKS[1] }, /^Invalid configuration: PAYMENT_WEBHOOK_SECRET is guessable/],
    ])('the same file with a %s anyone could exploit does not start: one line naming it', (_name, change, message) => {
      const dir = deployFolder('refused', exampleWith({ ...filled, ...change }));
      const result = spawnSync(process.execPath, [entry], { cwd: dir, env: serverEnvironment(), encoding: 'utf8', timeout: 20_000 });
      expect(result.status).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
    });

    it('starts with a Redis without a password when REDIS_ALLOW_NO_AUTH=true says so, and says so at start-up', async () => {
      const open = await RedisServerProcess.start();
      try {
        const dir = deployFolder('open-redis', exampleWith({ ...filled, REDIS_URL: open.url, REDIS_ALLOW_NO_AUTH: 'true', LOG_LEVEL: 'warn', METRICS_PORT: String(await freePort()) }));
        const started = await startIn(dir, serverEnvironment(), await freePort());
        try {
          expect(started.exited).toBeUndefined();
          expect(started.stdout() + started.stderr()).toMatch(/Redis without a password \(REDIS_URL\), allowed by REDIS_ALLOW_NO_AUTH=true/);
        } finally {
          await stop(started.child);
        }
      } finally {
        await open.stop();
      }
    });

    it('serves nothing internal on its public port', async () => {
      for (const path of ['/metrics', '/health/details', '/docs', '/docs-json']) expect(`${path}: ${(await fetch(`http://127.0.0.1:${port}${path}`)).status}`).toBe(`${path}: 404`);
      expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
    });

    it('says at start-up which file set what, and that it ignored NODE_ENV', () => {
      expect(app.stdout()).toMatch(/^configuration: \.env set .*JWT_SECRET.*; the environment's own value kept for PORT; NODE_ENV ignored \(only the environment sets it\)$/m);
    });

    it('binds the metrics listener to the loopback interface only', async () => {
      const external = Object.values(networkInterfaces())
        .flat()
        .find((address) => address && address.family === 'IPv4' && !address.internal);
      if (!external) return console.log('no non-loopback IPv4 address on this machine: bind checked on loopback only');
      await expect(fetch(`http://${external.address}:${metricsPort}/metrics`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
      expect((await fetch(`http://${external.address}:${port}/health/live`)).status).toBe(200);
    });
  });
});

describe('two instances on one host with the same METRICS_PORT', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    taken = createServer();
    await new Promise<void>((r) => taken.listen(port, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => taken.close(() => r())));

  it('the second exits with a line naming METRICS_PORT', async () => {
    const [db, redis] = await Promise.all([createTestDatabase(), RedisServerProcess.start()]);
    try {
      const env = serverEnvironment({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: db.url, REDIS_URL: redis.url, METRICS_PORT: String(port) });
      const app = await startIn(resolve('.'), env, await freePort());
      if (app.exited === undefined) {
        await new Promise((r) => app.child.once('exit', r));
        app.exited = app.child.exitCode ?? undefined;
      }
      expect(app.exited).toBe(1);
      expect(app.stderr()).toMatch(new RegExp(`METRICS_PORT ${port} is already in use`));
    } finally {
      await redis.stop();
      await db.drop();
    }
  });
});
