import type { LockEventMap } from './lock';
import type { LockEngine } from './lock-engine';

export type LockEventName = keyof LockEventMap;

/** The part of the core an observer needs: subscribe and unsubscribe. */
export type LockEventSource = Pick<LockEngine, 'on' | 'off'>;

/** Subscribes to several events at once; returns a function that removes every listener. */
export function listenTo(
  source: LockEventSource,
  listeners: { [E in LockEventName]?: (payload: LockEventMap[E]) => void },
): () => void {
  const entries = Object.entries(listeners) as Array<[LockEventName, (payload: unknown) => void]>;
  entries.forEach(([event, listener]) => source.on(event, listener));
  return () => entries.forEach(([event, listener]) => source.off(event, listener));
}
