import { LocalRateCounts } from './local-rate-counts';

describe('LocalRateCounts', () => {
  it('counts each tracker on its own within a window', () => {
    const counts = new LocalRateCounts();
    expect([counts.hit('a', 7), counts.hit('a', 7), counts.hit('b', 7), counts.hit('a', 7)]).toEqual([1, 2, 1, 3]);
  });

  it('starts every count again in a new window, holding nothing of the old one', () => {
    const counts = new LocalRateCounts();
    counts.hit('a', 7);
    counts.hit('b', 7);
    expect(counts.hit('a', 8)).toBe(1);
    expect(counts.trackers).toBe(1);
  });

  it('holds at most its cap of trackers a window: the rest share one count, and those counted keep theirs', () => {
    const counts = new LocalRateCounts(3);
    for (const tracker of ['a', 'b', 'c']) counts.hit(tracker, 1);
    const overflow = Array.from({ length: 1000 }, (_, i) => counts.hit(`junk-${i}`, 1));
    expect(overflow.slice(0, 3)).toEqual([1, 2, 3]);
    expect(overflow.at(-1)).toBe(1000);
    expect(counts.trackers).toBe(3);
    expect(counts.hit('a', 1)).toBe(2);
    // The next window takes new trackers on their own again.
    expect(counts.hit('junk-1', 2)).toBe(1);
  });
});
