import {
  bool,
  ConfigError,
  Env,
  fail,
  HostPort,
  hostPortList,
  integer,
  oneOf,
  url,
  urlList,
  userInfo,
} from './env.schema';

export type RedisMode = 'standalone' | 'sentinel' | 'cluster';

/** One Redis server as a client reaches it: address, database, credentials, and whether over TLS. */
export interface RedisNode {
  host: string;
  port: number;
  db: number;
  username: string | undefined;
  password: string | undefined;
  tls: boolean;
}

/** Credentials and TLS of the Sentinel-managed or Cluster nodes, and the Sentinels' own password. */
export interface RedisAuth {
  username: string | undefined;
  password: string | undefined;
  sentinelPassword: string | undefined;
  tls: boolean;
}

export interface RedisConfig {
  mode: RedisMode;
  /** REDIS_URL's server (standalone), with REDIS_USERNAME / REDIS_PASSWORD / REDIS_TLS applied. */
  node: RedisNode;
  sentinels: HostPort[];
  sentinelName: string;
  clusterNodes: HostPort[];
  auth: RedisAuth;
  /** REDLOCK_URLS, each with its own credentials (else REDIS_USERNAME / REDIS_PASSWORD) and TLS. */
  redlockNodes: RedisNode[];
  /** REDIS_ALLOW_NO_AUTH: production was told on purpose that a Redis without a password is fine. */
  allowNoAuth: boolean;
  keyPrefix: string;
  commandTimeoutMs: number;
}

const PROTOCOLS = ['redis:', 'rediss:'];

/**
 * Every Redis setting, applied the same way in every mode: REDIS_PASSWORD / REDIS_USERNAME over the
 * URL's own, REDIS_TLS over the URL's scheme. Settings that cannot all hold (REDIS_TLS=false beside
 * a rediss:// URL) stop start-up rather than one of them being ignored.
 */
export function loadRedisConfig(env: Env, nodeEnv: 'development' | 'production' | 'test'): RedisConfig {
  const tls = env.REDIS_TLS === undefined || env.REDIS_TLS === '' ? undefined : bool(false)(env.REDIS_TLS, 'REDIS_TLS');
  const shared: SharedSettings = {
    username: env.REDIS_USERNAME || undefined,
    password: env.REDIS_PASSWORD || undefined,
    tls,
  };
  const node = redisNode(
    url('redis://127.0.0.1:6379', PROTOCOLS)(env.REDIS_URL, 'REDIS_URL'),
    'REDIS_URL',
    shared,
    'shared first',
  );
  const redlockNodes = urlList(PROTOCOLS, 3)(env.REDLOCK_URLS, 'REDLOCK_URLS').map((raw) =>
    redisNode(raw, 'REDLOCK_URLS', shared, 'own first'),
  );
  const config: RedisConfig = {
    ...topology(env),
    node,
    auth: {
      username: node.username,
      password: node.password,
      sentinelPassword: env.REDIS_SENTINEL_PASSWORD || undefined,
      tls: node.tls,
    },
    redlockNodes,
    allowNoAuth: bool(false)(env.REDIS_ALLOW_NO_AUTH, 'REDIS_ALLOW_NO_AUTH'),
    keyPrefix: env.REDIS_KEY_PREFIX ?? 'fs:',
    commandTimeoutMs: integer(1000, 50, 60_000)(env.REDIS_COMMAND_TIMEOUT_MS, 'REDIS_COMMAND_TIMEOUT_MS'),
  };
  if (nodeEnv === 'production' && !config.allowNoAuth) refuseOpenNodes(config);
  return config;
}

/** The variables naming a Redis this configuration reaches without a password (none when all have one). */
export function openNodes(redis: RedisConfig): string[] {
  const open: string[] = [];
  if (!redis.node.password) open.push(redis.mode === 'standalone' ? 'REDIS_URL' : 'REDIS_PASSWORD');
  if (redis.mode === 'sentinel' && !redis.auth.sentinelPassword) open.push('REDIS_SENTINEL_PASSWORD');
  if (redis.redlockNodes.some((node) => !node.password)) open.push('REDLOCK_URLS');
  return open;
}

// Whoever reaches a Redis without a password can admit themselves from the waiting room, clear
// sold-out flags and reset every rate limit: production needs that said on purpose.
function refuseOpenNodes(redis: RedisConfig): void {
  const [first] = openNodes(redis);
  if (first === undefined) return;
  throw new ConfigError(
    `Invalid configuration: ${first} reaches a Redis without a password, refused when NODE_ENV=production (anyone on its network could change queues, limits and sold-out flags); ` +
      'give it one (requirepass; redis://:<password>@host or REDIS_PASSWORD), or set REDIS_ALLOW_NO_AUTH=true if nothing but this API can reach it',
  );
}

interface SharedSettings {
  username: string | undefined;
  password: string | undefined;
  tls: boolean | undefined;
}

/**
 * A validated redis:// or rediss:// URL as a node, the shared settings applied: over the URL's own
 * credentials for REDIS_URL (REDIS_PASSWORD is documented to win), under them for a Redlock node
 * (each independent node may have a password of its own).
 */
function redisNode(
  raw: string,
  name: string,
  shared: SharedSettings,
  credentials: 'shared first' | 'own first',
): RedisNode {
  const parsed = new URL(raw);
  // ioredis would read options from the query; this configuration is the only place they come from.
  if (parsed.search) fail(name, 'takes no ?options (set REDIS_TLS, REDIS_USERNAME, REDIS_PASSWORD instead)', raw);
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db)) fail(name, 'may name a database number only (redis://host:6379/0)', raw);
  const rediss = parsed.protocol === 'rediss:';
  if (shared.tls === false && rediss)
    fail('REDIS_TLS', `is false but ${name} asks for TLS (rediss://); drop one of them`, 'false');
  const own = userInfo(parsed)!; // url() checked the encoding
  const [first, second] = credentials === 'shared first' ? [shared, own] : [own, shared];
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 6379,
    db: db === '' ? 0 : Number(db),
    username: first.username ?? second.username,
    password: first.password ?? second.password,
    tls: shared.tls ?? rediss,
  };
}

/** REDIS_MODE and what it needs: Sentinels and a master name, or Cluster seed nodes. */
function topology(env: Env): Pick<RedisConfig, 'mode' | 'sentinels' | 'sentinelName' | 'clusterNodes'> {
  const mode = oneOf<RedisMode>('standalone', ['standalone', 'sentinel', 'cluster'])(env.REDIS_MODE, 'REDIS_MODE');
  const sentinels = hostPortList(1)(env.REDIS_SENTINELS, 'REDIS_SENTINELS');
  const clusterNodes = hostPortList(1)(env.REDIS_CLUSTER_NODES, 'REDIS_CLUSTER_NODES');
  if (mode === 'sentinel' && sentinels.length === 0)
    throw new ConfigError('Invalid configuration: REDIS_SENTINELS is required when REDIS_MODE=sentinel');
  if (mode === 'cluster' && clusterNodes.length === 0)
    throw new ConfigError('Invalid configuration: REDIS_CLUSTER_NODES is required when REDIS_MODE=cluster');
  return { mode, sentinels, sentinelName: env.REDIS_SENTINEL_NAME || 'mymaster', clusterNodes };
}
