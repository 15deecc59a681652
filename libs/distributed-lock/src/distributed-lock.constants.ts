/** Injection token of the framework-free `DistributedLock` instance the module creates. */
export const DISTRIBUTED_LOCK = Symbol('DISTRIBUTED_LOCK');

/** Injection token of the Redis connections the module resolved from `redis` / `redisFactory`. */
export const DISTRIBUTED_LOCK_CONNECTIONS = Symbol('DISTRIBUTED_LOCK_CONNECTIONS');

/** Injection token of the module's options (`forRoot` argument or `forRootAsync` factory result). */
export const DISTRIBUTED_LOCK_MODULE_OPTIONS = Symbol('DISTRIBUTED_LOCK_MODULE_OPTIONS');
