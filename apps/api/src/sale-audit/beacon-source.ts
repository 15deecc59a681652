import { Logger } from '@nestjs/common';

/**
 * Reads one round of a drand chain over its HTTP API (`GET <url>/public/<round>` answers
 * `{ round, signature, ... }`), within a timeout. Whatever it answers is checked by the caller
 * before use; here only its shape. Undefined when the round is not there (yet), or the beacon is
 * unreachable, slow or answers nonsense: the caller tries again until its deadline.
 */
export async function fetchRoundSignature(
  baseUrl: string,
  round: number,
  timeoutMs: number,
  log: Logger,
): Promise<string | undefined> {
  try {
    const response = await fetch(`${baseUrl}/public/${round}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { round?: unknown; signature?: unknown };
    if (Number(body.round) !== round || typeof body.signature !== 'string') return undefined;
    return body.signature.toLowerCase();
  } catch (error) {
    log.warn(`beacon round ${round} not fetched: ${(error as Error).message}`);
    return undefined;
  }
}
