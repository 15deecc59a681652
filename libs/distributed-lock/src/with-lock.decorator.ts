import { Inject } from '@nestjs/common';
import { DistributedLockService } from './distributed-lock.service';
import { createLockKeyResolver, LockKeySource } from './lock-key.resolver';

/** Per-method lock options of `@WithLock`; unset values fall back to the module's defaults. */
export interface WithLockOptions {
  /** Lease in ms, renewed by the watchdog while the method runs. */
  ttlMs?: number;
  /** How long to wait for the lock before throwing LockTimeoutError. */
  waitMs?: number;
  /** FIFO among waiters across processes. */
  fair?: boolean;
}

const LOCK_SERVICE = Symbol('DistributedLockService');
/** Prototypes given the service property already: one injection per class, however many methods. */
const injected = new WeakSet<object>();

function injectServiceOnce(target: object): void {
  if (injected.has(target)) return;
  injected.add(target);
  Inject(DistributedLockService)(target, LOCK_SERVICE);
}

/**
 * Runs the decorated method (controller or provider) while holding a distributed lock.
 *
 * The key is a template such as `'stock:<productId>'`, several templates (one multi-key lock),
 * or a function of the method's arguments. A placeholder takes the argument bound with
 * `@Param/@Body/@Query('productId')`, else the `productId` property of the first object
 * argument that has one. Values are escaped so they cannot add segments or collide; a value
 * that is missing, empty or not a scalar throws LockKeyResolutionError before any lock is taken.
 *
 * Nested `@WithLock` calls on a key already held in the same async chain re-enter it. Inside,
 * inject `CurrentLock` to read the fence and abort signal.
 */
export function WithLock(key: LockKeySource, options: WithLockOptions = {}): MethodDecorator {
  return (target, propertyKey, descriptor: PropertyDescriptor) => {
    const original: unknown = descriptor.value;
    if (typeof original !== 'function') {
      throw new Error(`@WithLock can only decorate methods; ${target.constructor.name}.${String(propertyKey)} is not one`);
    }
    const resolveKey = createLockKeyResolver(key, target, propertyKey);
    const method = `${target.constructor.name}.${String(propertyKey)}`;
    injectServiceOnce(target);

    const wrapper = async function (this: Record<symbol, DistributedLockService | undefined>, ...args: unknown[]) {
      const lockKey = resolveKey(args);
      const service = this[LOCK_SERVICE];
      if (!service) {
        throw new Error(`@WithLock on ${method}: DistributedLockService was not injected; is the class a Nest provider and DistributedLockModule imported?`);
      }
      return service.using(lockKey, options, () => Promise.resolve(original.apply(this, args)));
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
