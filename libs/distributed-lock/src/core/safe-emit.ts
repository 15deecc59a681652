import type { EventEmitter } from 'node:events';

/**
 * Calls each listener of `event` on its own: one that throws, or returns a promise that rejects,
 * neither skips the others nor reaches the code that emitted (the watchdog, an acquire, a release;
 * Node's own `emit` lets a throw escape, in a timer an uncaught exception that ends the process).
 * The error becomes a process warning. Returns whether the event had listeners.
 */
export function emitSafely(emitter: EventEmitter, event: string, payload: unknown): boolean {
  if (emitter.listenerCount(event) === 0) return false;
  for (const listener of emitter.rawListeners(event) as Array<(payload: unknown) => unknown>) {
    try {
      const returned = listener.call(emitter, payload) as PromiseLike<unknown> | undefined;
      if (typeof returned?.then === 'function')
        returned.then(undefined, (error: unknown) => warn(`a '${event}' listener of DistributedLock failed`, error));
    } catch (error) {
      warn(`a '${event}' listener of DistributedLock failed`, error);
    }
  }
  return true;
}

/** A fault the library goes on after, reported as a process warning. */
export function warn(what: string, error: unknown): void {
  process.emitWarning(`${what}: ${String(error)}`, { type: 'DistributedLockWarning' });
}
