import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { PUBLISHED_SECRETS } from '../../apps/api/src/config/published-secrets';
import { createTestDatabase, TestDatabase } from '../support/test-database';

const entry = resolve('dist/apps/api/main.js');

describe('start-up with bad configuration', () => {
  beforeAll(() => {
    if (!existsSync(entry)) throw new Error('build first: npm run build (npm test does it)');
  });

  it.each([
    ['LOCK_TTL_MS', 'soon'],
    ['REDIS_URL', 'localhost'],
    ['LOCK_FALLBACK', 'pray'],
    ['CORS_ORIGINS', 'shop.example.com'],
    ['TRUST_PROXY', 'maybe'],
    ['PRODUCT_CACHE_SWR_S', '-5'],
    ['REDIS_URL', 'redis://:50%off@127.0.0.1:6379'],
    ['REDIS_TLS', 'maybe'],
  ])('stops with exit code 1 and one line naming %s', (name, value) => {
    const result = spawnSync(process.execPath, [entry], { env: { ...process.env, [name]: value }, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
    expect(result.stdout).toBe('');
  });
});

describe('start-up with a bad value that carries a password', () => {
  const PASSWORD = 'S3cr3t-of-the-operator';

  it.each([
    ['REDIS_URL', `redis//:${PASSWORD}@127.0.0.1:6379`],
    ['REDIS_URL', `redis://:${PASSWORD}%@127.0.0.1:6379`],
    ['DATABASE_URL', `postgres//flashsale:${PASSWORD}@127.0.0.1:5432/flashsale`],
    ['REDLOCK_URLS', `redis://:${PASSWORD}@a:1,redis://:${PASSWORD}@b:2`],
  ])('names %s in its one line and never prints the password (%s)', (name, value) => {
    const result = spawnSync(process.execPath, [entry], { env: { ...process.env, [name]: value }, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${name} `));
    expect(result.stderr + result.stdout).not.toContain(PASSWORD.slice(0, 6));
  });
});

/** The environment of a plain `node main.js` on a server: this test process's, minus what would make it safe. */
function bareEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['NODE_ENV', 'JWT_SECRET', 'JWT_AUDIENCE', 'JWT_PUBLIC_KEY_FILE', 'JWT_JWKS_URL', 'WAITING_ROOM_SECRET', 'PAYMENT_WEBHOOK_SECRET']) if (!(name in extra)) delete env[name];
  return env;
}

/** 32 bytes, all the same: long enough, and guessed at the first try. */
const REPEATED = 'z'.repeat(32);

describe('start-up in production (NODE_ENV unset) refuses to run without a real key', () => {
  const longPublished = PUBLISHED_SECRETS.find((secret) => Buffer.byteLength(secret) >= 32)!;

  it.each([
    ['no key at all', {}, 'JWT_SECRET is required'],
    ['a secret under 32 bytes', { JWT_SECRET: randomBytes(15).toString('hex') }, 'JWT_SECRET must be at least 32 bytes'],
    ['the old compose default', { JWT_SECRET: 'change-me-in-production-please' }, 'JWT_SECRET'],
    ['a secret written in the repository', { JWT_SECRET: longPublished }, 'JWT_SECRET is a value published in this repository'],
    ['a published webhook secret', { JWT_SECRET: randomBytes(32).toString('hex'), JWT_AUDIENCE: 'shop', PAYMENT_WEBHOOK_SECRET: longPublished }, 'PAYMENT_WEBHOOK_SECRET'],
    ['HS256 without JWT_AUDIENCE', { JWT_SECRET: randomBytes(32).toString('hex') }, 'JWT_AUDIENCE is required when NODE_ENV=production'],
    ['a long secret of one repeated character', { JWT_SECRET: REPEATED }, 'JWT_SECRET is guessable'],
  ])('%s: exit code 1 and one line naming the variable', (_case, extra, message) => {
    const result = spawnSync(process.execPath, [entry], { env: bareEnvironment(extra), encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
    expect(result.stdout).toBe('');
  });
});

describe('the migration command of the built app (`main.js migrate`)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('applies the migrations with the database settings alone, then finds nothing to do', () => {
    const run = () => spawnSync(process.execPath, [entry, 'migrate'], { env: bareEnvironment({ DATABASE_URL: database.url }), encoding: 'utf8', timeout: 60_000 });
    const first = run();
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^applied: .*InitialSchema/m);
    const second = run();
    expect(second.status).toBe(0);
    expect(second.stdout.trim()).toBe('schema is up to date');
  });
});
