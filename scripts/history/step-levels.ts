/** A quantity over time built from spans [from, until): how much of it is held at each instant. */
export interface Span {
  from: number;
  until: number;
  units: number;
}

/** The level after each change, in time order (ends before starts at the same instant: spans are half-open). */
export class StepLevels {
  readonly times: number[] = [];
  readonly levels: number[] = [];

  constructor(spans: Iterable<Span>) {
    const events: [number, number][] = [];
    for (const s of spans) {
      if (!(s.until > s.from)) continue;
      events.push([s.from, s.units]);
      if (s.until !== Infinity) events.push([s.until, -s.units]);
    }
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let level = 0;
    for (const [t, delta] of events) {
      level += delta;
      if (this.times.length && this.times[this.times.length - 1] === t) this.levels[this.levels.length - 1] = level;
      else {
        this.times.push(t);
        this.levels.push(level);
      }
    }
  }

  /** The level at instant t. */
  at(t: number): number {
    const i = lastAtOrBefore(this.times, t);
    return i < 0 ? 0 : this.levels[i];
  }

  /** The highest level at any instant of [from, to]. */
  maxOver(from: number, to: number): number {
    let best = this.at(from);
    for (let i = lastAtOrBefore(this.times, from) + 1; i < this.times.length && this.times[i] <= to; i++) best = Math.max(best, this.levels[i]);
    return best;
  }
}

/** Index of the last element <= t, or -1. */
export function lastAtOrBefore(sorted: number[], t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
