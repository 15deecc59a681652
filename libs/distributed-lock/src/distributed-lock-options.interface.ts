import type { Cluster, Redis } from 'ioredis';
import type { MetricsRegistry } from './lock-metrics';
import type { DistributedLockOptions } from './lock';

/** What locks run on: one client, a Cluster, or 3+ independent clients for a Redlock quorum. */
export type LockRedis = Redis | Cluster | Redis[];

/**
 * Options of `DistributedLockModule.forRoot` (and what `forRootAsync`'s factory returns): every
 * option of the core (`DistributedLockOptions`) plus the connection and the Nest-side extras.
 */
export interface DistributedLockModuleOptions extends DistributedLockOptions {
  /** The connection(s) to lock on. Give this or `redisFactory`. */
  redis?: LockRedis;
  /** Creates the connection(s) at start-up; those are then the module's to close on shutdown. */
  redisFactory?: () => LockRedis | Promise<LockRedis>;
  /**
   * Prometheus metrics, in prom-client's default registry unless one is given. Default: on when
   * prom-client is installed (an optional peer dependency), off otherwise; `true` without it throws.
   */
  metrics?: boolean | { registry?: MetricsRegistry };
  /** Log a warning through Nest's Logger when a lock was held longer than this. */
  longHoldWarnMs?: number;
  /**
   * Quit the Redis connection(s) on application shutdown. Defaults to true for connections made
   * by `redisFactory` and false for a `redis` the application passed in (and owns).
   */
  closeClientsOnShutdown?: boolean;
}
