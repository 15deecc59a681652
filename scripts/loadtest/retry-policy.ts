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

/** A bot's pause before re-sending a refused purchase in the plain flow, whatever Retry-After said. */
export const BOT_RESEND_MS = 10;
/** A bot's sends of one purchase (one Idempotency-Key) in the plain flow before it gives that key up. */
export const BOT_SENDS_PER_PURCHASE = 1000;

export type RetryDecision = { retry: false } | { retry: true; waitMs: number };

/**
 * What an account of the plain flow's populations does after a retryable answer (503, 429 or a
 * transport error) to send `retryIndex` (0: the first) of one purchase. A person retries up to
 * `maxRetries` times and never before `Retry-After` (even when it is longer than `capMs`, which
 * bounds only the jitter and the backoff without a hint); a bot re-sends after BOT_RESEND_MS,
 * `Retry-After` ignored, up to BOT_SENDS_PER_PURCHASE sends.
 */
export function populationRetry(
  kind: 'person' | 'bot',
  retryAfterMs: number | undefined,
  retryIndex: number,
  policy: { maxRetries: number; maxRetryDelayMs: number },
  random = Math.random,
): RetryDecision {
  if (kind === 'bot')
    return retryIndex + 1 >= BOT_SENDS_PER_PURCHASE ? { retry: false } : { retry: true, waitMs: BOT_RESEND_MS };
  if (retryIndex >= policy.maxRetries) return { retry: false };
  const waitMs = retryDelayMs(retryAfterMs, retryIndex, policy.maxRetryDelayMs, random);
  return { retry: true, waitMs: retryAfterMs === undefined ? waitMs : Math.max(retryAfterMs, waitMs) };
}

/** The API's 429 for a purchase sent before the Retry-After it was given (docs/API.md): nothing was done. */
export const isEarlyRetryRefusal = (status: number, message: unknown): boolean =>
  status === 429 && typeof message === 'string' && /before its Retry-After/i.test(message);
