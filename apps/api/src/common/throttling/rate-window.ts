/** Where `nowMs` falls in fixed windows of `windowMs` aligned on the epoch. */
export function windowAt(nowMs: number, windowMs: number): { index: number; msLeft: number } {
  const index = Math.floor(nowMs / windowMs);
  return { index, msLeft: (index + 1) * windowMs - nowMs };
}

/** Retry-After for a refusal: the whole seconds until the window ends, at least 1. */
export const retryAfterSeconds = (msLeft: number): number => Math.max(1, Math.ceil(msLeft / 1000));
