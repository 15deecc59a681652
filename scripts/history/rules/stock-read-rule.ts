import { ReadRecord, verdictOf } from '../format';
import { latestEffectMs, Model } from '../model';
import { OrderSpan } from '../order-spans';
import { RuleResult, RuleTally } from '../tally';

/** Something that may have moved units of a product during [fromMs, toMs] (client clock). */
export interface Cause {
  fromMs: number;
  toMs: number;
  units: number;
}

export type StockRead = ReadRecord & { stock: number };

/** The product's reads that showed a stock. */
export const stockReads = (m: Model, productId: string): StockRead[] =>
  m.byKind.read.filter(
    (op): op is StockRead => op.productId === productId && verdictOf(op) === 'ok' && typeof op.stock === 'number',
  );

/**
 * A product's stock as read by clients goes up only by units something could have given back
 * between two reads: a cancel, an expiry, or a stock set. An order gives its units back once, no
 * earlier than its span allows (see OrderSpan: an expiry not before the order was due, a cancel
 * not before it was sent) and no later than the database recorded it closed.
 */
export function stockReadsMonotone(m: Model, spans: OrderSpan[], preexisting: OrderSpan[] = []): RuleResult {
  const tally = new RuleTally('stock reads go up only by a cancel, expiry or restock between them');
  for (const product of m.products.values()) {
    const reads = stockReads(m, product.productId);
    // Pre-existing orders are not the history's, but their units come back to the stock when they end.
    judgePairs(
      m,
      tally,
      reads,
      returnsOf(m, product.productId, [...spans, ...preexisting]),
      (r) => r.stock,
      'give back',
    );
  }
  return tally.result();
}

/**
 * ... and goes down only by the orders made between two reads (or a stock set): an order's units
 * leave the stock when its purchase commits, after its createdAt and no later than the first
 * answer that showed the order (never, for an order no answer showed).
 */
export function stockReadsFallByOrders(m: Model): RuleResult {
  const tally = new RuleTally('stock reads go down only by orders made between them');
  const skew = m.options.skewMs;
  for (const product of m.products.values()) {
    const reads = stockReads(m, product.productId);
    const made = m.orders
      .filter((o) => o.productId === product.productId)
      .map((o) => ({ fromMs: o.createdAtMs - skew, toMs: m.shownByMs.get(o.id) ?? Infinity, units: o.quantity }));
    judgePairs(m, tally, reads, [...made, ...setsOf(m, product.productId)], (r) => -r.stock, 'take');
  }
  return tally.result();
}

/**
 * For reads r1 (finished before r2 began) and r2: value(r2) - value(r1) <= units of the causes
 * whose time span meets [r1.invoke, r2.complete]. That sum is S(r2.complete) - E(r1.invoke) (S:
 * units of causes that began before, E: of causes that were over by), so one sweep over the reads
 * in time order, keeping the smallest value(r1) - E(r1.invoke) seen, judges every pair: O(n log n).
 * A stock set explains any change; the reads are kept apart by how many sets were over when r1
 * began, so r2 is compared only with the r1 no set can stand between.
 */
function judgePairs(
  m: Model,
  tally: RuleTally,
  reads: StockRead[],
  causes: Cause[],
  value: (r: StockRead) => number,
  verb: string,
): void {
  if (reads.length < 2) {
    for (const _ of reads) tally.judge();
    return;
  }
  // A set that never answered may apply at any later time: from its send on, no pair can be judged.
  const unanswered = causes.reduce(
    (min, c) => (c.units === Infinity && c.toMs === Infinity ? Math.min(min, c.fromMs) : min),
    Infinity,
  );
  if (unanswered !== Infinity)
    tally.notJudged(
      unanswered,
      Infinity,
      `an unanswered stock set sent at ${new Date(unanswered).toISOString()} may apply at any later time: any change between two reads after it may be its doing`,
    );
  const units = causes.filter((c) => c.units !== Infinity);
  const sets = causes.filter((c) => c.units === Infinity).map((c) => ({ ...c, units: 1 }));
  const S = prefixSum(units, 'fromMs');
  const E = prefixSum(units, 'toMs');
  const setsStarted = prefixSum(sets, 'fromMs');
  const setsOver = prefixSum(sets, 'toMs');
  const byComplete = [...reads].sort((a, b) => a.completeMs - b.completeMs);
  const byInvoke = [...reads].sort((a, b) => a.invokeMs - b.invokeMs);
  const best = new Map<number, { key: number; read: StockRead }>();
  let j = 0;
  for (const r2 of byInvoke) {
    if (r2.completeMs >= unanswered) continue;
    while (j < byComplete.length && byComplete[j].completeMs < r2.invokeMs - m.options.staleReadMs) {
      const r1 = byComplete[j++];
      const epoch = setsOver(r1.invokeMs);
      const key = value(r1) - E(r1.invokeMs);
      if (key < (best.get(epoch)?.key ?? Infinity)) best.set(epoch, { key, read: r1 });
    }
    const allowed = S(r2.completeMs);
    const r1 = best.get(setsStarted(r2.completeMs));
    tally.judge(
      r1 && value(r2) - allowed > r1.key
        ? `product ${r2.productId}: read ${r2.stock} at [${r2.invokeMs}..${r2.completeMs}] after ${r1.read.stock} at [${r1.read.invokeMs}..${r1.read.completeMs}]; what happened between them can ${verb} at most ${allowed - E(r1.read.invokeMs)} unit(s)`
        : undefined,
    );
  }
}

/** Stock sets explain any change: infinite units. */
function setsOf(m: Model, productId: string): Cause[] {
  return m.byKind.setStock
    .filter((op) => op.productId === productId && verdictOf(op) !== 'refused')
    .map((op) => ({ fromMs: op.invokeMs, toMs: latestEffectMs(op), units: Infinity }));
}

/** Orders that ended give their units back once, within their span's end (database clock, widened by the tolerance). */
function returnsOf(m: Model, productId: string, spans: OrderSpan[]): Cause[] {
  const skew = m.options.skewMs;
  const causes = setsOf(m, productId);
  for (const s of spans) {
    if (s.order.productId !== productId || s.sureUntil === Infinity) continue;
    causes.push({ fromMs: s.sureUntil - skew, toMs: s.mayUntil + skew, units: s.order.quantity });
  }
  return causes;
}

/**
 * f(t) = Σ units of the causes whose `field` is before t (fromMs: began before t) or at or before t
 * (toMs: over by t; causes never over are left out), by binary search.
 */
export function prefixSum(causes: Cause[], field: 'fromMs' | 'toMs'): (t: number) => number {
  const points = causes.filter((c) => c[field] !== Infinity).sort((a, b) => a[field] - b[field]);
  const sums: number[] = [0];
  for (const c of points) sums.push(sums[sums.length - 1] + c.units);
  const inclusive = field === 'toMs';
  return (t) => {
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (inclusive ? points[mid][field] <= t : points[mid][field] < t) lo = mid + 1;
      else hi = mid;
    }
    return sums[lo];
  };
}
