import { randomBytes } from 'node:crypto';
import { loadConfig } from './app-config';
import { ConfigError, Env } from './env.schema';

const production = (env: Env): Env => ({
  NODE_ENV: 'production',
  JWT_SECRET: randomBytes(32).toString('hex'),
  JWT_AUDIENCE: 'flash-sale-api',
  DATABASE_URL: 'postgres://flashsale:own-password@db.internal:5432/flashsale',
  REDIS_URL: 'redis://:own-redis-password@redis.internal:6379',
  ...env,
});

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
    expect(refusal(production({ DATABASE_URL: undefined }))).toMatch(
      /^Invalid configuration: DATABASE_URL must be set, with credentials of your own/,
    );
    expect(refusal(production({ DATABASE_URL: 'postgres://postgres:postgres@db.internal:5432/shop' }))).toMatch(
      /DATABASE_URL/,
    );
    expect(loadConfig(production({})).database.url).toContain('flashsale:own-password');
    expect(loadConfig({ NODE_ENV: 'development' }).database.url).toBe(
      'postgres://postgres:postgres@127.0.0.1:5432/flashsale',
    );
  });

  it('refuses PAYMENTS_DIRECT=true, which lets buyers mark their orders paid', () => {
    expect(refusal(production({ PAYMENTS_DIRECT: 'true' }))).toMatch(
      /PAYMENTS_DIRECT=true .* refused when NODE_ENV=production/,
    );
    expect(refusal(production({ PAYMENTS_DIRECT: '1' }))).toMatch(/PAYMENTS_DIRECT/);
    expect(loadConfig(production({ PAYMENTS_DIRECT: 'false' })).payments.direct).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', PAYMENTS_DIRECT: 'true' }).payments.direct).toBe(true);
  });

  it.each([
    ['true', /TRUST_PROXY=true lets any client choose the address/],
    ['1', /TRUST_PROXY as a hop count/],
    ['2', /TRUST_PROXY as a hop count/],
    ['0.0.0.0/1,128.0.0.0/1', /TRUST_PROXY entry 0\.0\.0\.0\/1/],
    ['10.0.0.0/8', /TRUST_PROXY entry 10\.0\.0\.0\/8/],
    ['10.1.2.3, 172.16.0.0/15', /TRUST_PROXY entry 172\.16\.0\.0\/15/],
    ['uniquelocal', /TRUST_PROXY entry uniquelocal/],
    ['linklocal', /TRUST_PROXY entry linklocal/],
    ['::/0', /TRUST_PROXY entry ::\/0/],
    ['2001:db8::/32', /TRUST_PROXY entry 2001:db8::\/32/],
    ['::/64', /TRUST_PROXY entry ::\/64/],
    ['::ffff:0:0/96', /TRUST_PROXY entry ::ffff:0:0\/96/],
    ['::ffff:10.0.0.0/104', /TRUST_PROXY entry ::ffff:10\.0\.0\.0\/104/],
  ])('refuses TRUST_PROXY=%s: any client reaching the API could choose its address', (value, message) => {
    const line = refusal(production({ TRUST_PROXY: value }));
    expect(line).toMatch(/^Invalid configuration: TRUST_PROXY[= ]/);
    expect(line).toMatch(message);
    expect(line).toMatch(/refused when NODE_ENV=production/);
    expect(line.split('\n')).toHaveLength(1);
  });

  it('takes named proxies, subnets up to a /16 (IPv6: /64) and loopback; other modes take anything', () => {
    const trusted =
      '10.0.3.7, 10.1.0.0/16, 192.168.4.0/24, loopback, fd00:1:2:3::/64, 2001:db8::5, ::ffff:10.9.0.0/112';
    expect(loadConfig(production({ TRUST_PROXY: trusted })).edge.trustProxy).toEqual(
      trusted.split(',').map((entry) => entry.trim()),
    );
    expect(loadConfig(production({ TRUST_PROXY: 'false' })).edge.trustProxy).toBe(false);
    expect(loadConfig(production({ TRUST_PROXY: '0' })).edge.trustProxy).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: 'true' }).edge.trustProxy).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: '1' }).edge.trustProxy).toBe(1);
    expect(loadConfig({ NODE_ENV: 'development', TRUST_PROXY: '0.0.0.0/1,128.0.0.0/1' }).edge.trustProxy).toEqual([
      '0.0.0.0/1',
      '128.0.0.0/1',
    ]);
  });

  it('refuses, in any mode, a placeholder from .env.example left in place', () => {
    expect(refusal(production({ JWT_SECRET: '<32+ random bytes: openssl rand -hex 32>' }))).toMatch(
      /^Invalid configuration: JWT_SECRET still holds the placeholder <32\+ random bytes/,
    );
    expect(refusal({ NODE_ENV: 'development', REDIS_URL: 'redis://:<password>@127.0.0.1:6379' })).toMatch(
      /REDIS_URL still holds the placeholder <password>/,
    );
  });
});
