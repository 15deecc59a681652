/** Monotonic milliseconds; never jumps with the wall clock. */
export const now = (): number => performance.now();

/** Redlock's allowance for clock drift between the nodes and us: ttl × factor + 2 ms. */
export function driftMs(ttlMs: number, driftFactor: number): number {
  return Math.round(ttlMs * driftFactor) + 2;
}
