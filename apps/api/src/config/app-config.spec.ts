import { loadConfig } from './app-config';
import { ConfigError, Env } from './env.schema';

/** Development: the environment these cases are about has nothing to do with production's secret rules. */
const dev = (env: Env = {}): Env => ({ NODE_ENV: 'development', ...env });

describe('loadConfig', () => {
  it('applies the contract defaults to an empty environment', () => {
    const config = loadConfig(dev());
    expect(config).toMatchObject({
      port: 3000,
      database: { url: 'postgres://postgres:postgres@127.0.0.1:5432/flashsale', migrate: true },
      redis: {
        node: { host: '127.0.0.1', port: 6379, db: 0, username: undefined, password: undefined, tls: false },
        redlockNodes: [],
      },
      lock: { ttlMs: 5000, waitMs: 3000, fallback: 'db' },
      orders: { paymentTtlS: 900, purchaseDeadlineMs: 2000, purchaseQueueMax: 4096 },
    });
  });

  it.each([
    ['PORT', 'eighty', /PORT must be an integer/],
    ['PORT', '70000', /PORT must be an integer from 0 to 65535/],
    ['LOCK_TTL_MS', '1.5', /LOCK_TTL_MS must be an integer/],
    ['LOCK_WAIT_MS', '-1', /LOCK_WAIT_MS must be an integer/],
    ['ORDER_PAYMENT_TTL_S', '0', /ORDER_PAYMENT_TTL_S/],
    ['LOCK_FALLBACK', 'maybe', /LOCK_FALLBACK must be one of db, reject/],
    ['DATABASE_URL', 'not a url', /DATABASE_URL must be a URL/],
    ['DATABASE_URL', 'mysql://localhost/x', /DATABASE_URL must use postgres:/],
    ['REDIS_URL', 'http://x', /REDIS_URL must use redis:/],
    ['REDLOCK_URLS', 'redis://a:1,redis://b:2', /REDLOCK_URLS needs at least 3/],
    ['DB_MIGRATE', 'yes', /DB_MIGRATE must be true or false/],
    ['REDIS_MODE', 'replicated', /REDIS_MODE must be one of standalone, sentinel, cluster/],
    ['REDIS_SENTINELS', 'a:1,b', /REDIS_SENTINELS must be a comma-separated list of host:port/],
    ['REDIS_CLUSTER_NODES', 'a:99999', /REDIS_CLUSTER_NODES must be a comma-separated list/],
    ['LOCK_WAIT_FOR_REPLICAS', '1', /LOCK_WAIT_FOR_REPLICAS must be replicas:timeoutMs/],
    ['PURCHASE_DEADLINE_MS', 'soon', /PURCHASE_DEADLINE_MS must be an integer from 100 to 60000/],
    ['PURCHASE_DEADLINE_MS', '50', /PURCHASE_DEADLINE_MS must be an integer from 100 to 60000/],
    ['PURCHASE_QUEUE_MAX', '0', /PURCHASE_QUEUE_MAX must be an integer from 1 to 1000000/],
  ])('refuses %s=%s with one line naming it', (name, value, message) => {
    expect(() => loadConfig(dev({ [name]: value }))).toThrow(ConfigError);
    expect(() => loadConfig(dev({ [name]: value }))).toThrow(message);
  });

  it('parses three Redlock nodes', () => {
    const urls = 'redis://a:1, redis://b:2,redis://c:3';
    expect(
      loadConfig(dev({ REDLOCK_URLS: urls })).redis.redlockNodes.map((node) => `${node.host}:${node.port}`),
    ).toEqual(['a:1', 'b:2', 'c:3']);
  });

  it('reads the Sentinel and Cluster topologies and refuses a mode without its nodes', () => {
    const sentinel = loadConfig(
      dev({ REDIS_MODE: 'sentinel', REDIS_SENTINELS: 's1:26379, s2:26380', REDIS_SENTINEL_NAME: 'shop' }),
    ).redis;
    expect(sentinel).toMatchObject({
      mode: 'sentinel',
      sentinelName: 'shop',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
    });
    expect(loadConfig(dev({ REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: 'r1:7000' })).redis.clusterNodes).toEqual([
      { host: 'r1', port: 7000 },
    ]);
    expect(loadConfig(dev()).redis.mode).toBe('standalone');
    expect(() => loadConfig(dev({ REDIS_MODE: 'sentinel' }))).toThrow(
      /REDIS_SENTINELS is required when REDIS_MODE=sentinel/,
    );
    expect(() => loadConfig(dev({ REDIS_MODE: 'cluster' }))).toThrow(/REDIS_CLUSTER_NODES is required/);
  });

  it("reads the Redis credentials and TLS for every mode: REDIS_PASSWORD, else the URL's; the Sentinels' own", () => {
    expect(loadConfig(dev()).redis.auth).toEqual({
      username: undefined,
      password: undefined,
      sentinelPassword: undefined,
      tls: false,
    });
    expect(loadConfig(dev({ REDIS_URL: 'rediss://app:p%40ss@r:6380' })).redis.auth).toEqual({
      username: 'app',
      password: 'p@ss',
      sentinelPassword: undefined,
      tls: true,
    });
    const sentinel = dev({
      REDIS_MODE: 'sentinel',
      REDIS_SENTINELS: 's1:26379',
      REDIS_PASSWORD: 'data-pw',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
      REDIS_TLS: 'true',
    });
    expect(loadConfig(sentinel).redis.auth).toEqual({
      username: undefined,
      password: 'data-pw',
      sentinelPassword: 'sentinel-pw',
      tls: true,
    });
    expect(() => loadConfig(dev({ REDIS_TLS: 'yes' }))).toThrow(/REDIS_TLS must be true or false/);
  });

  it('parses LOCK_WAIT_FOR_REPLICAS as replicas:timeoutMs', () => {
    expect(loadConfig(dev({ LOCK_WAIT_FOR_REPLICAS: '1:100' })).lock.waitForReplicas).toEqual({
      replicas: 1,
      timeoutMs: 100,
    });
    expect(loadConfig(dev()).lock.waitForReplicas).toBeUndefined();
  });
});
