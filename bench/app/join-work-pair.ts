import { median } from '../lock/stats';

/**
 * The join-work pair: the API's CPU per join of a fresh user on a product without join work
 * (`plain`) and on the same product with `waitingRoom.joinWork` (`work`), taking turns over rounds.
 */
export type JoinWorkSide = 'plain' | 'work';

/** The order of the two sides in round `round`: plain first in even rounds, work first in odd ones. */
export function sidesOfRound(round: number): [JoinWorkSide, JoinWorkSide] {
  return round % 2 === 0 ? ['plain', 'work'] : ['work', 'plain'];
}

/** One measured load: the API's and Redis's CPU over it and the answers that count (200s). */
export interface MeasuredLoad {
  answers: number;
  apiCpuS: number;
  redisCpuS: number;
}

/** What one round measured, each side on a fresh API process of its own. */
export interface JoinWorkRound {
  /** (a) `POST /products/:id/queue` of a product without join work, each from a user the API has not seen. */
  plain: MeasuredLoad;
  /** (b1) `GET /products/:id/queue/challenge`, one per user: the sale's challenge, public, from memory. */
  challenge: MeasuredLoad;
  /** (b2) `POST /products/:id/queue` with solved work, each from a user the API has not seen (its token verified, its work checked). */
  workedJoin: MeasuredLoad;
  violations: string[];
}

/** µs of the API's CPU per answer (NaN without answers). */
export const apiUsPer = (load: MeasuredLoad): number => (load.answers > 0 ? (load.apiCpuS / load.answers) * 1e6 : NaN);
const redisUsPer = (load: MeasuredLoad): number => (load.answers > 0 ? (load.redisCpuS / load.answers) * 1e6 : NaN);

/** A round's figures in µs of API CPU: (b) = one challenge plus one worked join, the whole of a fresh user's join with work. */
export interface JoinWorkRoundFigures {
  plainUs: number;
  challengeUs: number;
  workedJoinUs: number;
  /** challengeUs + workedJoinUs. */
  workUs: number;
  /** workUs / plainUs: the "API CPU per join with work over without". */
  ratio: number;
  /** workedJoinUs / plainUs: the join request alone. */
  joinOnlyRatio: number;
  plainRedisUs: number;
  workRedisUs: number;
}

export function roundFigures(round: JoinWorkRound): JoinWorkRoundFigures {
  const plainUs = apiUsPer(round.plain);
  const challengeUs = apiUsPer(round.challenge);
  const workedJoinUs = apiUsPer(round.workedJoin);
  const workUs = challengeUs + workedJoinUs;
  return {
    plainUs,
    challengeUs,
    workedJoinUs,
    workUs,
    ratio: workUs / plainUs,
    joinOnlyRatio: workedJoinUs / plainUs,
    plainRedisUs: redisUsPer(round.plain),
    workRedisUs: redisUsPer(round.challenge) + redisUsPer(round.workedJoin),
  };
}

/** A figure over the rounds: its median (nearest rank, the lower middle of an even count) and range. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

function spread(values: number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

export interface JoinWorkSummary {
  rounds: JoinWorkRoundFigures[];
  plainUs: Spread;
  challengeUs: Spread;
  workedJoinUs: Spread;
  workUs: Spread;
  /** The median of each round's own ratio (the two sides of a round ran a minute apart, the rounds further). */
  ratio: Spread;
  joinOnlyRatio: Spread;
  violations: string[];
}

export function summariseJoinWork(rounds: JoinWorkRound[]): JoinWorkSummary {
  if (rounds.length === 0) throw new Error('join-work: no rounds to summarise');
  const figures = rounds.map(roundFigures);
  const bad = figures.findIndex((f) => !Number.isFinite(f.ratio));
  if (bad >= 0) throw new Error(`join-work: round ${bad + 1} has a side without answers`);
  const of = (key: keyof JoinWorkRoundFigures) => spread(figures.map((f) => f[key]));
  return {
    rounds: figures,
    plainUs: of('plainUs'),
    challengeUs: of('challengeUs'),
    workedJoinUs: of('workedJoinUs'),
    workUs: of('workUs'),
    ratio: of('ratio'),
    joinOnlyRatio: of('joinOnlyRatio'),
    violations: rounds.flatMap((r) => r.violations),
  };
}

const us = (value: number) => value.toFixed(1);
const times = (value: number) => `${value.toFixed(2)}×`;
const range = (s: Spread, text: (v: number) => string) =>
  s.min === s.max ? text(s.median) : `${text(s.median)} (${text(s.min)}–${text(s.max)})`;

/** The pair as markdown tables (readable as plain text too): each round, then the medians. */
export function renderJoinWork(summary: JoinWorkSummary, squarings: number): string {
  const rows = summary.rounds.map(
    (f, i) =>
      `| ${i + 1} (${sidesOfRound(i).join(' first, ')} second) | ${us(f.plainUs)} | ${us(f.challengeUs)} | ${us(f.workedJoinUs)} | ${us(f.workUs)} | ${times(f.ratio)} | ${times(f.joinOnlyRatio)} | ${us(f.plainRedisUs)} / ${us(f.workRedisUs)} |`,
  );
  return [
    `| round | (a) plain join, API µs | (b1) challenge, API µs | (b2) worked join (T=${squarings}), API µs | (b) = b1 + b2 | (b)/(a) | b2/(a) | Redis µs, (a) / (b) |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    `| median (range) | ${range(summary.plainUs, us)} | ${range(summary.challengeUs, us)} | ${range(summary.workedJoinUs, us)} | ${range(summary.workUs, us)} | ${range(summary.ratio, times)} | ${range(summary.joinOnlyRatio, times)} | |`,
  ].join('\n');
}
