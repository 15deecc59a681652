import { ReadRecord, verdictOf } from '../format';
import { latestEffectMs, Model } from '../model';
import { RuleResult, RuleTally } from '../tally';

/** Something that may have given units back to a product during [fromMs, toMs]. */
interface Cause {
  fromMs: number;
  toMs: number;
  units: number;
}

/**
 * A product's stock as read by clients goes up only by units something could have given back
 * between two reads: a cancel, an expiry (any time after the order's expiresAt), or a stock set.
 * For reads r1 (finished before r2 began) and r2: r2.stock - r1.stock <= units of the causes whose
 * time span meets [r1.invoke, r2.complete]. That sum is S(r2.complete) - E(r1.invoke) (S: units of
 * causes that began before, E: of causes that were over by), so one sweep over the reads in time
 * order, keeping the smallest r1.stock - E(r1.invoke) seen, judges every pair: O(n log n). A stock
 * set explains any rise; the reads are kept apart by how many sets were over when r1 began, so r2
 * is compared only with the r1 no set can stand between.
 */
export function stockReadsMonotone(m: Model): RuleResult {
  const tally = new RuleTally('stock reads go up only by a cancel, expiry or restock between them');
  const skew = m.options.skewMs;
  for (const product of m.products.values()) {
    const reads = m.ops.filter((op): op is ReadRecord & { stock: number } => op.op === 'read' && op.productId === product.productId && verdictOf(op) === 'ok' && typeof op.stock === 'number');
    if (reads.length < 2) {
      for (const _ of reads) tally.judge();
      continue;
    }
    const causes = causesOf(m, product.productId, skew);
    const units = causes.filter((c) => c.units !== Infinity);
    const sets = causes.filter((c) => c.units === Infinity).map((c) => ({ ...c, units: 1 }));
    const S = prefixSum(units, 'fromMs');
    const E = prefixSum(units, 'toMs');
    const setsStarted = prefixSum(sets, 'fromMs');
    const setsOver = prefixSum(sets, 'toMs');
    const byComplete = [...reads].sort((a, b) => a.completeMs - b.completeMs);
    const byInvoke = [...reads].sort((a, b) => a.invokeMs - b.invokeMs);
    const best = new Map<number, { key: number; read: ReadRecord & { stock: number } }>();
    let j = 0;
    for (const r2 of byInvoke) {
      while (j < byComplete.length && byComplete[j].completeMs < r2.invokeMs - m.options.staleReadMs) {
        const r1 = byComplete[j++];
        const epoch = setsOver(r1.invokeMs);
        const key = r1.stock - E(r1.invokeMs);
        if (key < (best.get(epoch)?.key ?? Infinity)) best.set(epoch, { key, read: r1 });
      }
      const allowed = S(r2.completeMs);
      const r1 = best.get(setsStarted(r2.completeMs));
      tally.judge(
        r1 && r2.stock - allowed > r1.key
          ? `product ${product.productId}: read ${r2.stock} at [${r2.invokeMs}..${r2.completeMs}] after ${r1.read.stock} at [${r1.read.invokeMs}..${r1.read.completeMs}]; causes between them give back at most ${allowed - E(r1.read.invokeMs)}`
          : undefined,
      );
    }
  }
  return tally.result();
}

function causesOf(m: Model, productId: string, skew: number): Cause[] {
  const causes: Cause[] = [];
  const cancelled = new Set<string>();
  for (const op of m.ops) {
    if (op.op === 'setStock' && op.productId === productId && verdictOf(op) !== 'refused') causes.push({ fromMs: op.invokeMs, toMs: latestEffectMs(op), units: Infinity });
    if (op.op !== 'cancel' || verdictOf(op) === 'refused') continue;
    const order = m.ordersById.get(op.orderId);
    if (order?.productId !== productId) continue;
    cancelled.add(order.id);
    causes.push({ fromMs: op.invokeMs, toMs: latestEffectMs(op), units: order.quantity });
  }
  for (const order of m.orders) {
    if (order.productId !== productId) continue;
    if (order.status === 'EXPIRED') causes.push({ fromMs: order.expiresAtMs - skew, toMs: Infinity, units: order.quantity });
    // A cancel this history did not record: at any time after the order was made.
    if (order.status === 'CANCELLED' && !cancelled.has(order.id)) causes.push({ fromMs: order.createdAtMs - skew, toMs: Infinity, units: order.quantity });
  }
  return causes;
}

/**
 * f(t) = Σ units of the causes whose `field` is before t (fromMs: began before t) or at or before t
 * (toMs: over by t; causes never over are left out), by binary search.
 */
function prefixSum(causes: Cause[], field: 'fromMs' | 'toMs'): (t: number) => number {
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
