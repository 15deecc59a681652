import type { JwksKeyStore } from './jwks-key-store';

/**
 * A provider's `max-age` is honoured down to this: `max-age=0` or `no-cache` (some providers send
 * them on every answer) asks to check before each use, which a verifier cannot do, and must not
 * become a read per token; one read per 5 s per instance is nothing to a provider.
 */
export const MIN_PROVIDER_FRESHNESS_MS = 5_000;

/**
 * Reads the key set again on a schedule, so that a key the provider withdraws stops verifying
 * within one interval (JWT_JWKS_REFRESH_S, or the provider's shorter `Cache-Control: max-age`).
 * A failed read is retried on the same interval while the store keeps its last good set (for 3
 * intervals). The timer keeps no process alive, and `stop()` (application shutdown) ends it.
 */
export class JwksRefreshSchedule {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly keys: JwksKeyStore,
    private readonly refreshMs: number,
  ) {}

  /** The first read (awaited, so that the keys are there before traffic), then the schedule. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.readAndReschedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async readAndReschedule(): Promise<void> {
    await this.keys.load();
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.readAndReschedule(), this.nextReadInMs());
    this.timer.unref();
  }

  /** The configured interval, or the freshness the provider last gave when it is shorter. */
  private nextReadInMs(): number {
    const providerSays = this.keys.freshForMs;
    if (providerSays === undefined) return this.refreshMs;
    return Math.min(this.refreshMs, Math.max(providerSays, MIN_PROVIDER_FRESHNESS_MS));
  }
}
