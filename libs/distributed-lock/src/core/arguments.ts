import type { AcquireOptions, DistributedLockOptions } from '../lock';

// A caller's mistake (a client that was never created, a TTL in seconds as a string) is named
// here with what was given, rather than surfacing as a TypeError deep inside ioredis or a script.

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string') return `the string "${value}"`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function isClient(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { evalsha?: unknown }).evalsha === 'function';
}

function check(valid: boolean, what: string, expected: string, value: unknown): void {
  if (!valid) throw new TypeError(`${what} must be ${expected}; got ${describe(value)}`);
}

const isInteger = (v: unknown, min: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min;
const isDuration = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export function checkClients(redis: unknown): void {
  const clients = Array.isArray(redis) ? redis : [redis];
  const expected = 'an ioredis client (Redis or Cluster), or an array of 3 or more for Redlock';
  check(clients.length > 0 && clients.every(isClient), 'DistributedLock: the first argument', expected, redis);
}

export function checkLockOptions(options: DistributedLockOptions): void {
  check(typeof options === 'object' && options !== null, 'DistributedLock: options', 'an object', options);
  const { prefix, defaultTtlMs, defaultWaitMs, driftFactor, maxLocalHandoffs, waitForReplicas, subscriber } = options;
  if (prefix !== undefined) check(typeof prefix === 'string', 'options.prefix', 'a string', prefix);
  if (defaultTtlMs !== undefined)
    check(isInteger(defaultTtlMs, 1), 'options.defaultTtlMs', 'a whole number of ms, 1 or more', defaultTtlMs);
  if (defaultWaitMs !== undefined)
    check(isDuration(defaultWaitMs), 'options.defaultWaitMs', 'a number of ms, 0 or more', defaultWaitMs);
  if (driftFactor !== undefined)
    check(isDuration(driftFactor) && driftFactor < 1, 'options.driftFactor', 'a fraction from 0 up to 1', driftFactor);
  if (maxLocalHandoffs !== undefined)
    check(isInteger(maxLocalHandoffs, 0), 'options.maxLocalHandoffs', 'a whole number, 0 or more', maxLocalHandoffs);
  if (subscriber !== undefined) check(isClient(subscriber), 'options.subscriber', 'an ioredis client', subscriber);
  if (waitForReplicas !== undefined) {
    const valid =
      typeof waitForReplicas === 'object' &&
      waitForReplicas !== null &&
      isInteger(waitForReplicas.replicas, 1) &&
      isInteger(waitForReplicas.timeoutMs, 0);
    check(valid, 'options.waitForReplicas', '{ replicas: 1 or more, timeoutMs: 0 or more }', waitForReplicas);
  }
}

export function checkAcquireOptions(opts: AcquireOptions): void {
  check(typeof opts === 'object' && opts !== null, 'acquire options', 'an object', opts);
  const { ttlMs, waitMs, fair, signal, reentrant, token } = opts;
  if (ttlMs !== undefined) check(isInteger(ttlMs, 1), 'ttlMs', 'a whole number of ms, 1 or more', ttlMs);
  if (waitMs !== undefined) check(isDuration(waitMs), 'waitMs', 'a number of ms, 0 or more', waitMs);
  if (fair !== undefined) check(typeof fair === 'boolean', 'fair', 'a boolean', fair);
  if (signal !== undefined) check(signal instanceof AbortSignal, 'signal', 'an AbortSignal', signal);
  if (reentrant !== undefined) check(typeof reentrant === 'boolean', 'reentrant', 'a boolean', reentrant);
  if (token !== undefined) check(typeof token === 'string' && token.length > 0, 'token', 'a non-empty string', token);
}
