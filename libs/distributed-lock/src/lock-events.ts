/** Payloads of the events the lock core emits, by event name. */
export interface LockEventPayloads {
  acquired: { key: string; waitMs: number; fence: number; reentrant: boolean };
  released: { key: string; holdMs: number; wasHeld: boolean };
  extended: { key: string; ttlMs: number };
  renewalFailed: { key: string; error: unknown };
  lost: { key: string; holdMs: number };
  timeout: { key: string; waitMs: number };
  unavailable: { key: string; error: unknown };
}

export type LockEventName = keyof LockEventPayloads;

/** The part of the core an observer needs: subscribe and unsubscribe. */
export interface LockEventSource {
  on(event: string, listener: (payload: any) => void): unknown;
  off(event: string, listener: (payload: any) => void): unknown;
}

/** Subscribes to several events at once; returns a function that removes every listener. */
export function listenTo(
  source: LockEventSource,
  listeners: { [E in LockEventName]?: (payload: LockEventPayloads[E]) => void },
): () => void {
  const entries = Object.entries(listeners) as Array<[LockEventName, (payload: any) => void]>;
  entries.forEach(([event, listener]) => source.on(event, listener));
  return () => entries.forEach(([event, listener]) => source.off(event, listener));
}
