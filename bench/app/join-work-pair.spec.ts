import {
  apiUsPer,
  JoinWorkRound,
  renderJoinWork,
  roundFigures,
  sidesOfRound,
  summariseJoinWork,
} from './join-work-pair';

const load = (answers: number, apiCpuS: number, redisCpuS = 0) => ({ answers, apiCpuS, redisCpuS });
const round = (
  plainUs: number,
  challengeUs: number,
  workedJoinUs: number,
  violations: string[] = [],
): JoinWorkRound => ({
  plain: load(1_000, plainUs / 1_000, 0.003),
  challenge: load(1_000, challengeUs / 1_000, 0.001),
  workedJoin: load(1_000, workedJoinUs / 1_000, 0.004),
  violations,
});

describe('the join-work pair', () => {
  it('swaps which side goes first every round', () => {
    expect(sidesOfRound(0)).toEqual(['plain', 'work']);
    expect(sidesOfRound(1)).toEqual(['work', 'plain']);
    expect(sidesOfRound(2)).toEqual(['plain', 'work']);
  });

  it("counts µs of the API's CPU per answer, and none without answers", () => {
    expect(apiUsPer(load(4_000, 0.2))).toBeCloseTo(50);
    expect(apiUsPer(load(0, 0.2))).toBeNaN();
  });

  it('adds the challenge to the worked join and divides by the plain join of the same round', () => {
    const f = roundFigures(round(50, 60, 55));
    expect(f.plainUs).toBeCloseTo(50);
    expect(f.workUs).toBeCloseTo(115);
    expect(f.ratio).toBeCloseTo(2.3);
    expect(f.joinOnlyRatio).toBeCloseTo(1.1);
    expect(f.plainRedisUs).toBeCloseTo(3);
    expect(f.workRedisUs).toBeCloseTo(5);
  });

  it("takes the median of each round's own ratio, not the ratio of the medians, and keeps every violation", () => {
    // Ratios 2.0, 1.5, 3.0: median 2.0. The medians of the sides would give 90 / 40 = 2.25.
    const summary = summariseJoinWork([round(40, 30, 50), round(60, 40, 50, ['a unit lost']), round(30, 40, 50)]);
    expect(summary.ratio.median).toBeCloseTo(2);
    expect(summary.ratio.min).toBeCloseTo(1.5);
    expect(summary.ratio.max).toBeCloseTo(3);
    expect(summary.plainUs.median).toBeCloseTo(40);
    expect(summary.workUs.median).toBeCloseTo(90);
    expect(summary.violations).toEqual(['a unit lost']);
  });

  it('refuses a round where a side had no answers', () => {
    const empty = { ...round(40, 30, 50), workedJoin: load(0, 0.1) };
    expect(() => summariseJoinWork([round(40, 30, 50), empty])).toThrow('round 2 has a side without answers');
    expect(() => summariseJoinWork([])).toThrow('no rounds');
  });

  it('prints each round with its order and the medians with their range', () => {
    const text = renderJoinWork(summariseJoinWork([round(40, 30, 50), round(60, 40, 50)]), 1_000);
    expect(text).toContain('(b2) worked join (T=1000)');
    expect(text).toContain('| 1 (plain first, work second) | 40.0 | 30.0 | 50.0 | 80.0 | 2.00× | 1.25× | 3.0 / 5.0 |');
    expect(text).toContain('| 2 (work first, plain second) | 60.0 | 40.0 | 50.0 | 90.0 | 1.50× |');
    expect(text).toContain('| median (range) | 40.0 (40.0–60.0) |');
    // Two rounds: the median is the lower one (nearest rank), as the other bench tables take it.
    expect(text).toContain('| 1.50× (1.50×–2.00×) | 0.83× (0.83×–1.25×) |');
  });
});
