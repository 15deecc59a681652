import type { OpRecord } from '../history/format';

/**
 * Attempt numbers handed out from one counter that every worker thread shares (a SharedArrayBuffer),
 * so the workers together start exactly `limit` attempts (or keep going until the deadline), each
 * number once, and a fast worker takes more of them than a slow one.
 */
export class AttemptCounter {
  private readonly next: Int32Array;

  /** `shared`: the buffer of a counter made in another thread; a fresh one when omitted. */
  constructor(
    private readonly limit = Infinity,
    readonly shared: SharedArrayBuffer = new SharedArrayBuffer(4),
  ) {
    this.next = new Int32Array(shared);
  }

  /** The next attempt number, or -1 once `limit` have been handed out. */
  claim(): number {
    if (Atomics.load(this.next, 0) >= this.limit) return -1;
    const n = Atomics.add(this.next, 0, 1);
    return n < this.limit ? n : -1;
  }
}

/** Workers to run: as asked, but never more than there are connections to give them. */
export function workerCount(asked: number, connections: number): number {
  return Math.max(1, Math.min(Math.floor(asked), Math.floor(connections)));
}

/** `connections` shared out over `workers`: as even as whole connections allow, the larger shares first. */
export function splitConnections(connections: number, workers: number): number[] {
  const base = Math.floor(connections / workers);
  const extra = connections % workers;
  return Array.from({ length: workers }, (_, i) => base + (i < extra ? 1 : 0));
}

/**
 * Several threads' histories as one, ordered by completion on the clock they share (one machine,
 * one wall clock). The sort is stable: records that completed in the same millisecond keep the
 * order each thread wrote them in.
 */
export function mergeThreadHistories(parts: OpRecord[][]): OpRecord[] {
  return parts.flat().sort((a, b) => a.completeMs - b.completeMs);
}
