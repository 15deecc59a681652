import { countOverlaps } from './stats';

describe('countOverlaps', () => {
  it('finds a section that began before the previous one started its release, whatever the process', () => {
    expect(
      countOverlaps([
        { holder: 'p0w1', acquiredAt: 100, releasedAt: 101 },
        { holder: 'p1w3', acquiredAt: 100.5, releasedAt: 101.5 },
      ]),
    ).toBe(1);
  });

  it('accepts back-to-back sections and clock noise below the slack', () => {
    expect(
      countOverlaps([
        { holder: 'a', acquiredAt: 100, releasedAt: 101 },
        { holder: 'b', acquiredAt: 101.2, releasedAt: 102.2 },
        { holder: 'c', acquiredAt: 102.19, releasedAt: 103 },
      ]),
    ).toBe(0);
  });
});
