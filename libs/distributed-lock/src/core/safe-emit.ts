import type { EventEmitter } from 'node:events';

/**
 * Calls each listener of `event` on its own, so that one that throws (or returns a promise that
 * rejects) neither skips the listeners after it nor reaches the code that emitted: the watchdog,
 * an acquire that already holds its lock, a release. Node's own `emit` lets a throw escape, which
 * in a timer callback is an uncaught exception and ends the process. A listener's error is
 * reported as a process warning instead. Returns whether the event had listeners.
 */
export function emitSafely(emitter: EventEmitter, event: string, payload: unknown): boolean {
  if (emitter.listenerCount(event) === 0) return false;
  const listeners = emitter.rawListeners(event) as Array<(payload: unknown) => unknown>;
  for (const listener of listeners) {
    try {
      const returned = listener.call(emitter, payload);
      if (isThenable(returned)) returned.then(undefined, (error: unknown) => warnListenerFailed(event, error));
    } catch (error) {
      warnListenerFailed(event, error);
    }
  }
  return listeners.length > 0;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function warnListenerFailed(event: string, error: unknown): void {
  process.emitWarning(`a '${event}' listener of DistributedLock failed: ${String(error)}`, { type: 'DistributedLockWarning' });
}
