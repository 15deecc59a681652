import type { INestApplication } from '@nestjs/common';
import { RateClock } from '../../apps/api/src/common/throttling/rate-limiter';

/**
 * Pins the one-second windows every rate limit of `app` counts in (they are aligned on the epoch
 * second) to the window holding `atMs`, until the returned function is called: a burst then
 * counts into one window even when it straddles a second on the wall clock. Every limiter of the
 * app reads the one RateClock it provides on each hit, guards included, so the pin is on that
 * clock. The Redis counter keys still expire in real time (2 s).
 */
export function pinRateWindow(app: INestApplication, atMs = Date.now()): () => void {
  const pinned = jest.spyOn(app.get(RateClock), 'now').mockReturnValue(atMs);
  return () => pinned.mockRestore();
}
