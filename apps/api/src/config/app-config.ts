import { AuthConfig, checkSecret, loadAuthConfig } from './auth-config';
import { EdgeConfig, loadEdgeConfig } from './edge-config';
import { loadOpsConfig, OpsConfig } from './ops-config';
import { loadPaymentsConfig, PaymentsConfig } from './payments-config';
import { DEFAULT_DATABASE_URL, refusePlaceholders, refuseUnsafeProduction } from './production-rules';
import { bool, ConfigError, Env, integer, oneOf, replicasAndTimeout, url } from './env.schema';
import { loadRedisConfig, RedisConfig } from './redis-config';
import { loadSaleBeaconConfig, SaleBeaconConfig } from './sale-beacon-config';

export type LockFallback = 'db' | 'reject';
export type { RedisAuth, RedisMode, RedisNode } from './redis-config';

export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  logLevel: string;
  /** JWT_SECRET (auth.secret), the root of the waiting room's key; undefined with a public key alone. */
  jwtSecret: string | undefined;
  auth: AuthConfig;
  ops: OpsConfig;
  database: {
    url: string;
    migrate: boolean;
    poolSize: number;
    statementTimeoutMs: number;
    preparedStatements: boolean;
  };
  redis: RedisConfig;
  lock: {
    ttlMs: number;
    waitMs: number;
    fallback: LockFallback;
    waitForReplicas?: { replicas: number; timeoutMs: number };
  };
  orders: {
    paymentTtlS: number;
    expiryBatchSize: number;
    expiryIntervalMs: number;
    purchaseDeadlineMs: number;
    purchaseQueueMax: number;
  };
  /** publicReadsPerSecondPerAddress: requests one client address may send a second to each budgeted public route (GET /products/:id). */
  http: { bodyLimitBytes: number; rateLimitPerSecond: number; publicReadsPerSecondPerAddress: number };
  edge: EdgeConfig;
  payments: PaymentsConfig;
  /**
   * secret: WAITING_ROOM_SECRET (unset: derived from JWT_SECRET); tickMs: how often the admission
   * step runs; pollsPerSecond: the polls of one product's queue the fleet is sized to answer;
   * summaryPerSecondPerAddress: GET /products/:id/queue requests one client address may send a second.
   */
  waitingRoom: {
    secret: string | undefined;
    tickMs: number;
    pollsPerSecond: number;
    summaryPerSecondPerAddress: number;
  };
  /** The public randomness of the sales' start shuffles (SALE_BEACON_*). */
  saleBeacon: SaleBeaconConfig;
}

/** Reads and validates the environment; throws ConfigError with one line naming the variable. */
export function loadConfig(env: Env = process.env): AppConfig {
  // Unset means production: a plain `npm start` on a server must never fall back to published dev secrets.
  const nodeEnv = oneOf('production', ['development', 'production', 'test'] as const)(env.NODE_ENV, 'NODE_ENV');
  refusePlaceholders(env);
  const auth = loadAuthConfig(env, nodeEnv);
  const jwtSecret = auth.secret;
  refusePublishedSecrets(env, nodeEnv);
  if (nodeEnv === 'production') refuseUnsafeProduction(env);
  const port = integer(3000, 0, 65535)(env.PORT, 'PORT');
  const lockTtlMs = integer(5000, 100, 600_000)(env.LOCK_TTL_MS, 'LOCK_TTL_MS');
  return {
    nodeEnv,
    port,
    logLevel: oneOf('info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const)(
      env.LOG_LEVEL,
      'LOG_LEVEL',
    ),
    jwtSecret,
    auth,
    ops: loadOpsConfig(env, nodeEnv, port),
    database: loadDatabaseConfig(env),
    redis: loadRedisConfig(env, nodeEnv),
    lock: {
      ttlMs: lockTtlMs,
      waitMs: integer(3000, 0, 600_000)(env.LOCK_WAIT_MS, 'LOCK_WAIT_MS'),
      fallback: oneOf<LockFallback>('db', ['db', 'reject'])(env.LOCK_FALLBACK, 'LOCK_FALLBACK'),
      waitForReplicas: replicasAndTimeout(env.LOCK_WAIT_FOR_REPLICAS, 'LOCK_WAIT_FOR_REPLICAS'),
    },
    orders: {
      paymentTtlS: integer(900, 1, 30 * 24 * 3600)(env.ORDER_PAYMENT_TTL_S, 'ORDER_PAYMENT_TTL_S'),
      expiryBatchSize: integer(200, 1, 10_000)(env.ORDER_EXPIRY_BATCH, 'ORDER_EXPIRY_BATCH'),
      expiryIntervalMs: integer(5000, 100, 3_600_000)(env.ORDER_EXPIRY_INTERVAL_MS, 'ORDER_EXPIRY_INTERVAL_MS'),
      purchaseDeadlineMs: integer(2000, 100, 60_000)(env.PURCHASE_DEADLINE_MS, 'PURCHASE_DEADLINE_MS'),
      purchaseQueueMax: integer(4096, 1, 1_000_000)(env.PURCHASE_QUEUE_MAX, 'PURCHASE_QUEUE_MAX'),
    },
    http: {
      bodyLimitBytes: integer(64 * 1024, 1024, 10 * 1024 * 1024)(env.HTTP_BODY_LIMIT_BYTES, 'HTTP_BODY_LIMIT_BYTES'),
      rateLimitPerSecond: integer(20, 1, 1_000_000)(env.RATE_LIMIT_PER_SECOND, 'RATE_LIMIT_PER_SECOND'),
      publicReadsPerSecondPerAddress: integer(
        50,
        1,
        1_000_000,
      )(env.PUBLIC_READS_PER_SECOND_PER_ADDRESS, 'PUBLIC_READS_PER_SECOND_PER_ADDRESS'),
    },
    edge: loadEdgeConfig(env, nodeEnv),
    payments: loadPaymentsConfig(env, nodeEnv),
    waitingRoom: {
      secret: env.WAITING_ROOM_SECRET ? secretOfAtLeast(32)(env.WAITING_ROOM_SECRET, 'WAITING_ROOM_SECRET') : undefined,
      tickMs: integer(200, 20, 10_000)(env.WAITING_ROOM_TICK_MS, 'WAITING_ROOM_TICK_MS'),
      pollsPerSecond: integer(10_000, 100, 10_000_000)(env.WAITING_ROOM_POLLS_PER_S, 'WAITING_ROOM_POLLS_PER_S'),
      summaryPerSecondPerAddress: integer(
        50,
        1,
        1_000_000,
      )(env.QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS, 'QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS'),
    },
    saleBeacon: loadSaleBeaconConfig(env),
  };
}

/** The database settings alone: what the migration command needs (no secrets). */
export function loadDatabaseConfig(env: Env = process.env): AppConfig['database'] {
  return {
    url: url(DEFAULT_DATABASE_URL, ['postgres:', 'postgresql:'])(env.DATABASE_URL, 'DATABASE_URL'),
    migrate: bool(true)(env.DB_MIGRATE, 'DB_MIGRATE'),
    poolSize: integer(10, 1, 200)(env.DB_POOL_SIZE, 'DB_POOL_SIZE'),
    statementTimeoutMs: integer(5000, 100, 600_000)(env.DB_STATEMENT_TIMEOUT_MS, 'DB_STATEMENT_TIMEOUT_MS'),
    preparedStatements: bool(true)(env.DB_PREPARED_STATEMENTS, 'DB_PREPARED_STATEMENTS'),
  };
}

const secretOfAtLeast =
  (bytes: number) =>
  (raw: string, name: string): string => {
    if (Buffer.byteLength(raw, 'utf8') < bytes)
      throw new ConfigError(`Invalid configuration: ${name} must be at least ${bytes} bytes`);
    return raw;
  };

/**
 * In production the other shared secrets follow JWT_SECRET's rules (long, not in the repository),
 * and the waiting room needs its own key when no JWT_SECRET exists to derive one from.
 */
function refusePublishedSecrets(env: Env, nodeEnv: AppConfig['nodeEnv']): void {
  if (nodeEnv !== 'production') return;
  for (const name of ['PAYMENT_WEBHOOK_SECRET', 'WAITING_ROOM_SECRET']) {
    if (env[name]) checkSecret(name, env[name], true);
  }
  if (!env.JWT_SECRET && !env.WAITING_ROOM_SECRET) {
    throw new ConfigError(
      'Invalid configuration: WAITING_ROOM_SECRET is required when NODE_ENV=production and JWT_SECRET is unset',
    );
  }
}
