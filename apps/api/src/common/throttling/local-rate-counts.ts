/**
 * Trackers one window counts on their own; past this they share one count (memory stays bounded,
 * a few MB at most). Above what one instance answers in a second (about 12,000 purchases at best,
 * docs/BENCHMARKS.md), so the people of a sale never fall into the shared count during an outage.
 */
export const MAX_LOCAL_TRACKERS = 50_000;

/**
 * Hits per tracker in one rate window, counted in this process alone: the fallback of a shared
 * (Redis) budget while Redis is unreachable or slow, so that the budget becomes per instance
 * instead of none. The caller names the window (the same epoch-aligned index as the Redis keys),
 * and a new window starts every count again, so memory holds one window at most. Past
 * `maxTrackers` in a window, every further tracker counts into one shared overflow count: an
 * attacker spreading over more addresses than that shares one budget, and the trackers already
 * counted keep theirs.
 */
export class LocalRateCounts {
  private window = Number.NaN;
  private readonly counts = new Map<string, number>();
  private overflow = 0;

  constructor(private readonly maxTrackers = MAX_LOCAL_TRACKERS) {}

  /** Adds one hit of `tracker` in window `window`; the tracker's count in that window after it. */
  hit(tracker: string, window: number): number {
    if (window !== this.window) this.startWindow(window);
    const count = this.counts.get(tracker);
    if (count !== undefined) {
      this.counts.set(tracker, count + 1);
      return count + 1;
    }
    if (this.counts.size < this.maxTrackers) {
      this.counts.set(tracker, 1);
      return 1;
    }
    return ++this.overflow;
  }

  /** How many trackers the current window counts on their own (what memory holds). */
  get trackers(): number {
    return this.counts.size;
  }

  private startWindow(window: number): void {
    this.window = window;
    this.counts.clear();
    this.overflow = 0;
  }
}
