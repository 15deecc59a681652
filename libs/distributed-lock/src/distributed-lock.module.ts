import { ConfigurableModuleBuilder, Module, Provider } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { CurrentLock } from './current-lock';
import { DistributedLock } from './distributed-lock';
import {
  DISTRIBUTED_LOCK,
  DISTRIBUTED_LOCK_CONNECTIONS,
  DISTRIBUTED_LOCK_MODULE_OPTIONS,
} from './distributed-lock.constants';
import { DistributedLockService } from './distributed-lock.service';
import type { DistributedLockOptions } from './lock';
import type { MetricsRegistry } from './lock-metrics';

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
  /**
   * What a `@WithLock({ fenced: true })` method does when Redis cannot be reached: `throw` the
   * LockUnavailableError (default), or `run-unlocked`, with its storage's checks as the only guard.
   */
  whenUnreachable?: 'throw' | 'run-unlocked';
}

/** The Redis connection(s) the module locks on, and whether the module created them. */
export interface LockConnections {
  redis: LockRedis;
  createdByFactory: boolean;
  quitAll(): Promise<void>;
}

async function resolveConnections(options: DistributedLockModuleOptions): Promise<LockConnections> {
  const createdByFactory = options.redis === undefined;
  const redis = options.redis ?? (await options.redisFactory?.());
  if (!redis) throw new Error('DistributedLockModule needs `redis` or `redisFactory` in its options');
  if (Array.isArray(redis) && redis.length === 0) throw new Error('DistributedLockModule: `redis` is an empty array');
  const clients = [...(Array.isArray(redis) ? redis : [redis]), ...(options.subscriber ? [options.subscriber] : [])];
  // A client that is already closed or cannot reach Redis would make quit() hang or reject.
  const quitAll = async () =>
    void (await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect()))));
  return { redis, createdByFactory, quitAll };
}

/** Every option but the module's own goes to the core, so a new core option needs no change here. */
function createLock(connections: LockConnections, options: DistributedLockModuleOptions): DistributedLock {
  const {
    redis: _redis,
    redisFactory: _factory,
    metrics: _metrics,
    longHoldWarnMs: _warn,
    closeClientsOnShutdown: _close,
    whenUnreachable: _unreachable,
    ...core
  } = options;
  return new DistributedLock(connections.redis, core);
}

const { ConfigurableModuleClass } = new ConfigurableModuleBuilder<DistributedLockModuleOptions>({
  optionsInjectionToken: DISTRIBUTED_LOCK_MODULE_OPTIONS,
})
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

const providers: Provider[] = [
  { provide: DISTRIBUTED_LOCK_CONNECTIONS, useFactory: resolveConnections, inject: [DISTRIBUTED_LOCK_MODULE_OPTIONS] },
  {
    provide: DISTRIBUTED_LOCK,
    useFactory: createLock,
    inject: [DISTRIBUTED_LOCK_CONNECTIONS, DISTRIBUTED_LOCK_MODULE_OPTIONS],
  },
  DistributedLockService,
  CurrentLock,
];

/** Distributed locks for a Nest application: `DistributedLockService`, `CurrentLock` and `@WithLock`, global by default (`forRoot`, `forRootAsync`). */
@Module({
  providers,
  exports: [DistributedLockService, CurrentLock, DISTRIBUTED_LOCK],
})
export class DistributedLockModule extends ConfigurableModuleClass {}
