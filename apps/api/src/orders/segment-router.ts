import { Injectable } from '@nestjs/common';
import { BatchOutcome } from '../stock/stock.service';

// A segment found empty is skipped for this long; units a cancel returns to it are found after.
const EMPTY_FOR_MS = 1000;

/**
 * Segmented stock: a purchase goes to a segment this process believes has units, picked at
 * random so that concurrent buyers spread over the segments' locks. A segment that answers
 * SOLD_OUT is skipped and the purchase tries another; the product is sold out only when every
 * segment is. A purchase must fit in one segment (units are not gathered across segments).
 */
@Injectable()
export class SegmentRouter {
  private readonly emptyUntil = new Map<string, number[]>();

  /** Offers the purchase to segments (through `submitTo`) until one serves it or every one is sold out. */
  async route(
    productId: string,
    segments: number,
    submitTo: (segment: number) => Promise<BatchOutcome>,
  ): Promise<BatchOutcome> {
    const tried = new Set<number>();
    let last: BatchOutcome | undefined;
    for (let attempt = 0; attempt < segments; attempt++) {
      const segment = this.pick(productId, segments, tried);
      if (segment === undefined) break;
      tried.add(segment);
      last = await submitTo(segment);
      if (last.outcome !== 'SOLD_OUT') return last;
      this.markEmpty(productId, segments, segment);
    }
    return last ?? { outcome: 'SOLD_OUT', orderId: null, createdAt: null, expiresAt: null };
  }

  private pick(productId: string, segments: number, tried: Set<number>): number | undefined {
    const now = Date.now();
    const empty = this.emptyUntil.get(productId) ?? [];
    const untried = Array.from({ length: segments }, (_, s) => s).filter((s) => !tried.has(s));
    const withUnits = untried.filter((s) => (empty[s] ?? 0) <= now);
    // When every untried segment looks empty, check one anyway: this process's view may be stale.
    const pool = withUnits.length ? withUnits : untried.slice(0, 1);
    return pool.length ? pool[Math.floor(Math.random() * pool.length)] : undefined;
  }

  private markEmpty(productId: string, segments: number, segment: number): void {
    const empty = this.emptyUntil.get(productId) ?? new Array<number>(segments).fill(0);
    empty[segment] = Date.now() + EMPTY_FOR_MS;
    this.emptyUntil.set(productId, empty);
  }
}
