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
    // Change instants and amounts in flat typed arrays sorted by an index: a long history has a
    // million of them, and a [time, delta] pair each would be garbage to collect. The order of
    // changes at one instant does not matter: only the level after all of them is kept.
    const at: number[] = [];
    const by: number[] = [];
    for (const s of spans) {
      if (!(s.until > s.from)) continue;
      at.push(s.from);
      by.push(s.units);
      if (s.until !== Infinity) {
        at.push(s.until);
        by.push(-s.units);
      }
    }
    const times = Float64Array.from(at);
    const order = Uint32Array.from(at.keys());
    order.sort((a, b) => times[a] - times[b]);
    let level = 0;
    for (const i of order) {
      const t = times[i];
      level += by[i];
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
    for (let i = lastAtOrBefore(this.times, from) + 1; i < this.times.length && this.times[i] <= to; i++)
      best = Math.max(best, this.levels[i]);
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

/** The instants of a sorted list of distinct instants and of some others, sorted, each once. */
export function mergeInstants(sorted: number[], others: number[]): number[] {
  if (!others.length) return sorted;
  const extra = [...new Set(others)].sort((a, b) => a - b);
  const out: number[] = [];
  let j = 0;
  for (const t of sorted) {
    for (; j < extra.length && extra[j] <= t; j++) if (extra[j] < t) out.push(extra[j]);
    out.push(t);
  }
  for (; j < extra.length; j++) out.push(extra[j]);
  return out;
}
