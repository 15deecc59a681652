import { randomBytes } from 'node:crypto';
import { loadConfig } from './app-config';
import { ConfigError, Env } from './env.schema';

const dev = (env: Env = {}): Env => ({ NODE_ENV: 'development', ...env });
const production = (env: Env): Env => ({
  NODE_ENV: 'production',
  JWT_SECRET: randomBytes(32).toString('hex'),
  JWT_AUDIENCE: 'flash-sale-api',
  DATABASE_URL: 'postgres://flashsale:own-password@db.internal:5432/flashsale',
  ...env,
});

function refusal(env: Env): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.split('\n')).toHaveLength(1);
    return (error as Error).message;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('Redis TLS and credentials, the same in every mode', () => {
  it('applies REDIS_TLS and REDIS_PASSWORD / REDIS_USERNAME to a single Redis too (they were ignored there)', () => {
    const node = loadConfig(
      dev({
        REDIS_URL: 'redis://cache.internal:6380/2',
        REDIS_TLS: 'true',
        REDIS_USERNAME: 'app',
        REDIS_PASSWORD: 'pw',
      }),
    ).redis.node;
    expect(node).toEqual({ host: 'cache.internal', port: 6380, db: 2, username: 'app', password: 'pw', tls: true });
  });

  it("takes the URL's own credentials and TLS when the variables are unset, and REDIS_PASSWORD over the URL's", () => {
    expect(loadConfig(dev({ REDIS_URL: 'rediss://app:p%40ss@r:6380' })).redis.node).toEqual({
      host: 'r',
      port: 6380,
      db: 0,
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
    expect(loadConfig(dev({ REDIS_URL: 'redis://:old@r', REDIS_PASSWORD: 'new' })).redis.node.password).toBe('new');
  });

  it('refuses REDIS_TLS=false beside a rediss:// URL instead of ignoring one of them', () => {
    expect(refusal(dev({ REDIS_URL: 'rediss://r:6380', REDIS_TLS: 'false' }))).toMatch(
      /^Invalid configuration: REDIS_TLS is false but REDIS_URL asks for TLS/,
    );
    expect(refusal(dev({ REDIS_TLS: 'false', REDLOCK_URLS: 'redis://a:1,redis://b:1,rediss://c:1' }))).toMatch(
      /REDIS_TLS is false but REDLOCK_URLS asks for TLS/,
    );
  });

  it('gives each Redlock node its own password, else REDIS_PASSWORD, and TLS with REDIS_TLS', () => {
    const nodes = loadConfig(
      dev({ REDLOCK_URLS: 'redis://:own@a:1,redis://b:2,redis://c:3', REDIS_PASSWORD: 'shared', REDIS_TLS: 'true' }),
    ).redis.redlockNodes;
    expect(nodes.map((node) => [node.host, node.password, node.tls])).toEqual([
      ['a', 'own', true],
      ['b', 'shared', true],
      ['c', 'shared', true],
    ]);
  });

  it('refuses ?options in a Redis URL and a path that is not a database number', () => {
    expect(refusal(dev({ REDIS_URL: 'redis://r:6379?tls=false' }))).toMatch(/REDIS_URL takes no \?options/);
    expect(refusal(dev({ REDIS_URL: 'redis://r:6379/cache' }))).toMatch(/REDIS_URL may name a database number only/);
  });
});

describe('production and a Redis without a password', () => {
  it('refuses, naming the variable, a standalone, Cluster, Sentinel or Redlock node without one', () => {
    expect(refusal(production({}))).toMatch(
      /^Invalid configuration: REDIS_URL reaches a Redis without a password, refused when NODE_ENV=production/,
    );
    expect(refusal(production({ REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: 'r1:7000' }))).toMatch(
      /^Invalid configuration: REDIS_PASSWORD reaches a Redis without a password/,
    );
    const sentinel = { REDIS_MODE: 'sentinel', REDIS_SENTINELS: 's1:26379', REDIS_PASSWORD: 'data-pw' };
    expect(refusal(production(sentinel))).toMatch(/REDIS_SENTINEL_PASSWORD reaches a Redis without a password/);
    const redlock = { REDIS_URL: 'redis://:pw@r:6379', REDLOCK_URLS: 'redis://:pw@a:1,redis://b:2,redis://:pw@c:3' };
    expect(refusal(production(redlock))).toMatch(/REDLOCK_URLS reaches a Redis without a password/);
  });

  it('starts when every node has a password, or when REDIS_ALLOW_NO_AUTH=true says so on purpose', () => {
    expect(loadConfig(production({ REDIS_URL: 'redis://:pw@r:6379' })).redis.node.password).toBe('pw');
    expect(loadConfig(production({ REDIS_PASSWORD: 'pw' })).redis.node.password).toBe('pw');
    expect(loadConfig(production({ REDIS_ALLOW_NO_AUTH: 'true' })).redis.allowNoAuth).toBe(true);
    expect(refusal(production({ REDIS_ALLOW_NO_AUTH: 'yes' }))).toMatch(/REDIS_ALLOW_NO_AUTH must be true or false/);
    expect(loadConfig(dev()).redis.allowNoAuth).toBe(false);
  });
});
