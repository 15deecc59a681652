export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
/** Independent Redis nodes for Redlock; empty when REDLOCK_URLS is unset. */
export const REDLOCK_CLIENTS = Symbol('REDLOCK_CLIENTS');
