/** Monotonic milliseconds; never jumps with the wall clock. */
export const now = (): number => performance.now();

/** Redlock's allowance for clock drift between the nodes and us: ttl × factor + 2 ms. */
export function driftMs(ttlMs: number, driftFactor: number): number {
  return Math.round(ttlMs * driftFactor) + 2;
}

/** A uniformly jittered delay in [ms/2, ms], so that pollers that started together spread out. */
export function jitter(ms: number): number {
  return ms / 2 + Math.random() * (ms / 2);
}
