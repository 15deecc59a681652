import { randomBytes } from 'node:crypto';
import { loadConfig } from './app-config';
import { ConfigError, Env } from './env.schema';

const production = (env: Env): Env => ({ NODE_ENV: 'production', JWT_SECRET: randomBytes(32).toString('hex'), DATABASE_URL: 'postgres://flashsale:own-password@db.internal:5432/flashsale', ...env });

function refusal(env: Env): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('production refuses what is only safe on a laptop', () => {
  it('refuses an unset DATABASE_URL and the postgres:postgres credentials', () => {
    expect(refusal(production({ DATABASE_URL: undefined }))).toMatch(/^Invalid configuration: DATABASE_URL must be set, with credentials of your own/);
    expect(refusal(production({ DATABASE_URL: 'postgres://postgres:postgres@db.internal:5432/shop' }))).toMatch(/DATABASE_URL/);
    expect(loadConfig(production({})).database.url).toContain('flashsale:own-password');
    expect(loadConfig({ NODE_ENV: 'development' }).database.url).toBe('postgres://postgres:postgres@127.0.0.1:5432/flashsale');
  });

  it('refuses PAYMENTS_DIRECT=true, which lets buyers mark their orders paid', () => {
    expect(refusal(production({ PAYMENTS_DIRECT: 'true' }))).toMatch(/PAYMENTS_DIRECT=true .* refused when NODE_ENV=production/);
    expect(refusal(production({ PAYMENTS_DIRECT: '1' }))).toMatch(/PAYMENTS_DIRECT/);
    expect(loadConfig(production({ PAYMENTS_DIRECT: 'false' })).payments.direct).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', PAYMENTS_DIRECT: 'true' }).payments.direct).toBe(true);
  });

  it('refuses TRUST_PROXY=true (any client could choose its address) but takes named proxies or a hop count', () => {
    expect(refusal(production({ TRUST_PROXY: 'true' }))).toMatch(/TRUST_PROXY=true/);
    expect(loadConfig(production({ TRUST_PROXY: '10.0.0.0/8' })).edge.trustProxy).toEqual(['10.0.0.0/8']);
    expect(loadConfig(production({ TRUST_PROXY: '1' })).edge.trustProxy).toBe(1);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: 'true' }).edge.trustProxy).toBe(true);
  });

  it('refuses, in any mode, a placeholder from .env.example left in place', () => {
    expect(refusal(production({ JWT_SECRET: '<32+ random bytes: openssl rand -hex 32>' }))).toMatch(/^Invalid configuration: JWT_SECRET still holds the placeholder <32\+ random bytes/);
    expect(refusal({ NODE_ENV: 'development', REDIS_URL: 'redis://:<password>@127.0.0.1:6379' })).toMatch(/REDIS_URL still holds the placeholder <password>/);
  });
});
