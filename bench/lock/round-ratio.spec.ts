import { roundRatioInterval } from './round-ratio';

describe('roundRatioInterval', () => {
  it('gives the ratio of overall times per op (harmonic means of equal-length slices)', () => {
    // Two slices each: the contender did 1 and 3 ms per op, the baseline 2 and 2.
    const { ratio } = roundRatioInterval([1, 3], [2, 2]);
    expect(ratio).toBeCloseTo(1.5 / 2, 10);
  });

  it('has no width when every round gives the same ratio, however the rounds drift', () => {
    const base = [0.15, 0.2, 0.18, 0.3, 0.16];
    const { ratio, low, high } = roundRatioInterval(base.map((ms) => ms * 1.04), base);
    expect(ratio).toBeCloseTo(1.04, 10);
    expect(low).toBeCloseTo(1.04, 10);
    expect(high).toBeCloseTo(1.04, 10);
  });

  it('widens with the spread of the rounds and contains the point figure', () => {
    const base = Array.from({ length: 18 }, () => 0.18);
    const noisy = base.map((ms, i) => ms * (i % 2 === 0 ? 0.95 : 1.15));
    const narrow = roundRatioInterval(base.map((ms, i) => ms * (i % 2 === 0 ? 1.04 : 1.06)), base);
    const wide = roundRatioInterval(noisy, base);
    expect(wide.low).toBeLessThan(wide.ratio);
    expect(wide.high).toBeGreaterThan(wide.ratio);
    expect(wide.high - wide.low).toBeGreaterThan(3 * (narrow.high - narrow.low));
  });

  it('is reproducible (seeded)', () => {
    const a = [0.2, 0.21, 0.19, 0.25];
    const b = [0.19, 0.2, 0.2, 0.22];
    expect(roundRatioInterval(a, b)).toEqual(roundRatioInterval(a, b));
  });
});
