import * as rateWindow from '../../apps/api/src/common/throttling/rate-window';

/**
 * Pins the one-second windows every rate limit of the app counts in (they are aligned on the
 * epoch second) to the window holding `atMs`, until the returned function is called: a burst then
 * counts into one window even when it straddles a second on the wall clock. Each limiter captured
 * its clock at construction, and some sit inside guards the app does not hand out, so the pin is
 * on `windowAt`, which all of them ask. The Redis counter keys still expire in real time (2 s).
 */
export function pinRateWindow(atMs = Date.now()): () => void {
  const real = rateWindow.windowAt;
  const pinned = jest.spyOn(rateWindow, 'windowAt').mockImplementation((_nowMs, windowMs) => real(atMs, windowMs));
  return () => pinned.mockRestore();
}
