import { Inject } from '@nestjs/common';
import { DistributedLockService } from './distributed-lock.service';
import { isRedisUnreachable } from './core/redis-errors';
import { LockLostError, LockUnavailableError } from './errors';
import type { Lock } from './lock';
import { createLockKeyResolver, LockKeySource } from './lock-key.resolver';

/** Per-method lock options of `@WithLock`; unset values fall back to the module's defaults. */
export interface WithLockOptions {
  /** Lease in ms, renewed by the watchdog while the method runs. */
  ttlMs?: number;
  /** How long to wait for the lock before throwing LockTimeoutError; or a function of the call's arguments. */
  waitMs?: number | ((...args: any[]) => number);
  /** FIFO among waiters across processes. */
  fair?: boolean;
  /**
   * `false`: no re-entry and no async-context scope (`CurrentLock` sees nothing); the lock reaches
   * the method only through its `@HeldLock()` parameter. Costs nothing per promise of the process
   * (on Node 20 and 22 AsyncLocalStorage switches on promise hooks for every promise once used). Default true.
   */
  reentrant?: boolean;
  /**
   * The method's writes carry the lock's fence and the storage refuses a stale one, so the storage,
   * not the lease, is the last word: a lease found lost only after the method returned does not
   * undo its result, and with the module's `whenUnreachable: 'run-unlocked'` the method runs with
   * no lock (its `@HeldLock()` undefined) when Redis cannot be reached.
   */
  fenced?: boolean;
}

const LOCK_SERVICE = Symbol('DistributedLockService');
const HELD_LOCK_INDEX = Symbol('HeldLockIndex');
/** Prototypes given the service property already: one injection per class, however many methods. */
const injected = new WeakSet<object>();

function injectServiceOnce(target: object): void {
  if (injected.has(target)) return;
  injected.add(target);
  Inject(DistributedLockService)(target, LOCK_SERVICE);
}

/**
 * Marks the parameter of a `@WithLock` method that receives the lock the decorator took (its
 * fence for storage writes, its signal): callers pass nothing there. Undefined when a `fenced`
 * method runs unlocked because Redis is unreachable.
 */
export function HeldLock(): ParameterDecorator {
  return (target, propertyKey, index) => {
    if (propertyKey === undefined) throw new Error('@HeldLock() marks a parameter of a method, not of a constructor');
    Reflect.defineMetadata(HELD_LOCK_INDEX, index, target, propertyKey);
  };
}

/**
 * Runs the decorated method (controller or provider) while holding a distributed lock. The key is
 * a template such as `'stock:<productId>'` (see lock-key.resolver.ts), several templates (one
 * multi-key lock), or a function of the method's arguments. Nested calls on a key the async chain
 * holds re-enter it; inside, `CurrentLock` or a `@HeldLock()` parameter gives the fence and signal.
 */
export function WithLock(key: LockKeySource, options: WithLockOptions = {}): MethodDecorator {
  return (target, propertyKey, descriptor: PropertyDescriptor) => {
    const original = descriptor.value as ((...args: unknown[]) => unknown) | undefined;
    if (typeof original !== 'function') {
      throw new Error(
        `@WithLock can only decorate methods; ${target.constructor.name}.${String(propertyKey)} is not one`,
      );
    }
    const resolveKey = createLockKeyResolver(key, target, propertyKey);
    const method = `${target.constructor.name}.${String(propertyKey)}`;
    const { waitMs, fenced = false, ...fixed } = options;
    // Parameter decorators run before the method's own, so @HeldLock() has marked its index by now.
    const lockIndex: number | undefined = Reflect.getMetadata(HELD_LOCK_INDEX, target, propertyKey);
    const fixedOpts = typeof waitMs === 'function' ? undefined : { ...fixed, waitMs };
    injectServiceOnce(target);

    const wrapper = async function (this: Record<symbol, DistributedLockService | undefined>, ...args: unknown[]) {
      const lockKey = resolveKey(args);
      const service = this[LOCK_SERVICE];
      if (!service) {
        throw new Error(
          `@WithLock on ${method}: DistributedLockService was not injected; is the class a Nest provider and DistributedLockModule imported?`,
        );
      }
      const call = (lock: Lock | undefined) => {
        if (lockIndex !== undefined) args[lockIndex] = lock;
        return Promise.resolve(original.apply(this, args));
      };
      const opts = fixedOpts ?? { ...fixed, waitMs: (waitMs as (...callArgs: unknown[]) => number)(...args) };
      if (!fenced) return service.using(lockKey, opts, (_signal, lock) => call(lock));

      let started = false;
      let finished: { value: unknown } | undefined;
      try {
        return await service.using(lockKey, opts, async (_signal, lock) => {
          started = true;
          const value = await call(lock);
          finished = { value };
          return value;
        });
      } catch (error) {
        if (finished && error instanceof LockLostError) return finished.value;
        const unreachable = error instanceof LockUnavailableError || isRedisUnreachable(error);
        if (started || !unreachable || service.whenUnreachable !== 'run-unlocked') throw error;
      }
      return call(undefined);
    };
    // Decorators applied before this one stored their metadata (routes, guards, pipes, HTTP code,
    // Swagger) on the original; the wrapper must carry it. Later ones write to the wrapper itself.
    for (const metadataKey of Reflect.getOwnMetadataKeys(original)) {
      Reflect.defineMetadata(metadataKey, Reflect.getOwnMetadata(metadataKey, original), wrapper);
    }
    Object.defineProperty(wrapper, 'name', { value: original.name });
    descriptor.value = wrapper;
    return descriptor;
  };
}
