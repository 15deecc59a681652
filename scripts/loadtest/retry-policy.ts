/** When an attempt is retried, and how long it waits first. */

/** 503/429: refused, try again. (A 202 PURCHASE_PENDING is not bought again: its Location is asked.) */
export const isRetryableStatus = (status: number): boolean => status === 503 || status === 429;

/** Retry-After as delta-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The server's Retry-After when given, capped so one slow hint cannot stall the run; otherwise an
 * exponential backoff (transport errors carry no hint). A little jitter spreads the retries of
 * attempts that were refused together, so they do not come back as one burst.
 */
export function retryDelayMs(
  retryAfterMs: number | undefined,
  retryIndex: number,
  capMs: number,
  random = Math.random,
): number {
  const base = retryAfterMs ?? 100 * 2 ** retryIndex;
  const jittered = base + base * 0.2 * random();
  return Math.min(capMs, Math.round(jittered));
}
