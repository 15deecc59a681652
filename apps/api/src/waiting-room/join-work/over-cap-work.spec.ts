import { isOverCapStep, OVER_CAP_FIRST_SQUARINGS, OVER_CAP_MOST_SQUARINGS, overCapWork } from './over-cap-work';

describe('the work a join needs past its address cap', () => {
  it('starts at 2^17 squarings and stops doubling at 2^25 for a sale that asks no work of its own', () => {
    expect(overCapWork(undefined)).toEqual({ first: 2 ** 17, most: 2 ** 25 });
    expect([OVER_CAP_FIRST_SQUARINGS, OVER_CAP_MOST_SQUARINGS]).toEqual([131_072, 33_554_432]);
  });

  it("starts at twice a sale's own work, so a ticket over the cap always costs more than one under it", () => {
    expect(overCapWork(2_000)).toEqual({ first: 2 ** 17, most: 2 ** 25 });
    expect(overCapWork(300_000)).toEqual({ first: 600_000, most: 2 ** 25 });
    expect(overCapWork(100_000_000)).toEqual({ first: 200_000_000, most: 200_000_000 });
  });

  it('takes only the steps it serves: first x 2^k below the most, and the most', () => {
    const ladder = overCapWork(undefined);
    for (let k = 0; k <= 8; k++) expect(isOverCapStep(ladder, 2 ** (17 + k))).toBe(true);
    for (const other of [1, 2_000, 2 ** 16, 2 ** 17 + 1, 3 * 2 ** 17, 2 ** 26, 0, -(2 ** 17)])
      expect(isOverCapStep(ladder, other)).toBe(false);
    const odd = overCapWork(300_000);
    expect([600_000, 1_200_000, 19_200_000, 2 ** 25].every((t) => isOverCapStep(odd, t))).toBe(true);
    expect(isOverCapStep(odd, 38_400_000)).toBe(false);
  });
});
