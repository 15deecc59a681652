import { rateClock } from '../../apps/api/src/common/throttling/rate-limiter';

/**
 * Pins the one-second windows every rate limit of the app counts in (they are aligned on the
 * epoch second) to the window holding `atMs`, until the returned function is called: a burst then
 * counts into one window even when it straddles a second on the wall clock. Every limiter reads
 * `rateClock` on each hit, including those inside guards the app does not hand out, so the pin is
 * on that clock. The Redis counter keys still expire in real time (2 s).
 */
export function pinRateWindow(atMs = Date.now()): () => void {
  const pinned = jest.spyOn(rateClock, 'now').mockReturnValue(atMs);
  return () => pinned.mockRestore();
}
