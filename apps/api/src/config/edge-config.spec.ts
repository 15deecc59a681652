import { randomBytes } from 'node:crypto';
import { loadConfig } from './app-config';
import { ConfigError } from './env.schema';

describe('edge configuration', () => {
  it('allows any origin in development and test, none in production, unless CORS_ORIGINS says otherwise', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).edge.corsOrigins).toBe('*');
    expect(loadConfig({ NODE_ENV: 'test' }).edge.corsOrigins).toBe('*');
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://shop:own@db/shop',
      REDIS_URL: 'redis://:own@redis',
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_AUDIENCE: 'shop',
    };
    expect(loadConfig(production).edge.corsOrigins).toEqual([]);
    expect(loadConfig({ ...production, CORS_ORIGINS: '*' }).edge.corsOrigins).toBe('*');
  });

  it('reads CORS_ORIGINS as the origins browsers send, a trailing slash forgiven', () => {
    const origins = loadConfig({ NODE_ENV: 'test', CORS_ORIGINS: 'https://shop.example.com/, http://localhost:8080' })
      .edge.corsOrigins;
    expect(origins).toEqual(['https://shop.example.com', 'http://localhost:8080']);
  });

  it('trusts no proxy by default, and reads hop counts and proxy addresses', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).edge.trustProxy).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: 'false' }).edge.trustProxy).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: '0' }).edge.trustProxy).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: 'true' }).edge.trustProxy).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: '2' }).edge.trustProxy).toBe(2);
    expect(
      loadConfig({ NODE_ENV: 'test', TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,loopback, fd00::/8' }).edge.trustProxy,
    ).toEqual(['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8']);
  });

  it('counts an IPv6 client by its /64 by default, by a prefix from /48 to a whole address if told', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).edge.ipv6ClientPrefix).toBe(64);
    expect(loadConfig({ NODE_ENV: 'test', IPV6_CLIENT_PREFIX: '48' }).edge.ipv6ClientPrefix).toBe(48);
    expect(loadConfig({ NODE_ENV: 'test', IPV6_CLIENT_PREFIX: '128' }).edge.ipv6ClientPrefix).toBe(128);
    for (const outside of ['47', '129', '/64', 'sixty-four'])
      expect(() => loadConfig({ NODE_ENV: 'test', IPV6_CLIENT_PREFIX: outside })).toThrow(
        /IPV6_CLIENT_PREFIX must be an integer from 48 to 128/,
      );
  });

  it('gives product reads a short max-age and a longer stale-while-revalidate by default', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).edge.productCache).toEqual({ maxAgeS: 2, staleWhileRevalidateS: 10 });
    expect(
      loadConfig({ NODE_ENV: 'test', PRODUCT_CACHE_MAX_AGE_S: '0', PRODUCT_CACHE_SWR_S: '30' }).edge.productCache,
    ).toEqual({ maxAgeS: 0, staleWhileRevalidateS: 30 });
  });

  it('bounds a whole request to 10 s by default, from 1 s to 2 minutes', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).edge.requestBodyTimeoutMs).toBe(10_000);
    expect(loadConfig({ NODE_ENV: 'test', REQUEST_BODY_TIMEOUT_MS: '2000' }).edge.requestBodyTimeoutMs).toBe(2000);
    for (const outside of ['999', '120001', '0', '10s'])
      expect(() => loadConfig({ NODE_ENV: 'test', REQUEST_BODY_TIMEOUT_MS: outside })).toThrow(
        /REQUEST_BODY_TIMEOUT_MS must be an integer from 1000 to 120000/,
      );
  });

  it.each([
    ['CORS_ORIGINS', 'shop.example.com', /CORS_ORIGINS must be \* or comma-separated origins/],
    ['CORS_ORIGINS', 'https://shop.example.com/cart', /CORS_ORIGINS must be/],
    ['CORS_ORIGINS', 'ftp://files.example.com', /CORS_ORIGINS must be/],
    ['CORS_ORIGINS', 'https://a.example.com,,https://b.example.com', /CORS_ORIGINS must be/],
    ['TRUST_PROXY', 'yes', /TRUST_PROXY must be false, true, a hop count, or comma-separated proxy addresses/],
    ['TRUST_PROXY', '10.0.0.0/33', /TRUST_PROXY must be/],
    ['TRUST_PROXY', '10.0.0.1,proxy.internal', /TRUST_PROXY must be/],
    ['TRUST_PROXY', '1000', /TRUST_PROXY must be an integer from 0 to 100/],
    ['PRODUCT_CACHE_MAX_AGE_S', '-1', /PRODUCT_CACHE_MAX_AGE_S must be an integer from 0 to 3600/],
    ['PRODUCT_CACHE_SWR_S', 'a while', /PRODUCT_CACHE_SWR_S must be an integer/],
  ])('refuses %s=%s with one line naming it', (name, value, message) => {
    const load = () => loadConfig({ NODE_ENV: 'test', [name]: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
    try {
      load();
    } catch (error) {
      expect((error as Error).message.split('\n')).toHaveLength(1);
    }
  });
});
