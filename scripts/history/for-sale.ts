import { verdictOf } from './format';
import { cornerSums, WeightedPoint } from './corner-sums';
import { Model } from './model';
import { OrderSpan } from './order-spans';

/** A client's observation of a product, served at some instant of [fromMs, toMs] (client clock). */
export interface Observed {
  fromMs: number;
  toMs: number;
}

export interface ForSale {
  bound: number;
  why: string;
}

/** Where the stock for sale last started from: the initial stock, or an admin set (applied somewhere in [fromMs, toMs]). */
interface Start {
  stock: number;
  fromMs: number;
  toMs: number;
  what: string;
}

/**
 * The most units a product can have had for sale at an observation, over the whole history.
 * The stock starts from the last thing that could have set it before the observation was served:
 * the initial stock while no stock set surely applied, or any set sent before the observation
 * was answered that no later set surely followed (an unanswered set may apply at any later
 * time). From a start S it is at most S, less the units of the orders that surely committed
 * after the start surely applied (created after it, shown by an answer before the observation was
 * sent), plus the units of the orders (pre-existing ones too) that could have ended after the
 * start could have applied and before the observation was answered. The bound is the largest
 * over the possible starts.
 */
export function mostForSale(m: Model, productId: string, ended: OrderSpan[], seen: Observed[]): ForSale[] {
  const skew = m.options.skewMs;
  const product = m.products.get(productId);
  const initial: Start = {
    stock: product?.initialStock ?? 0,
    fromMs: -Infinity,
    toMs: -Infinity,
    what: `initial stock ${product?.initialStock ?? 0}`,
  };
  const starts = startsOf(m, productId);
  const candidates = seen.map((o) => starts.possibleAt(o, initial));
  const takenQueries = candidates.flatMap((list, i) => list.map((s) => ({ x: s.toMs, y: seen[i].fromMs })));
  const backQueries = candidates.flatMap((list, i) => list.map((s) => ({ x: s.fromMs, y: seen[i].toMs })));
  const takenPoints: WeightedPoint[] = [];
  for (const o of m.orders) {
    const shown = m.shownByMs.get(o.id);
    if (o.productId === productId && shown !== undefined)
      takenPoints.push({ x: o.createdAtMs - skew, y: shown, w: o.quantity });
  }
  const backPoints = ended
    .filter((s) => s.order.productId === productId && s.sureUntil !== Infinity)
    .map((s) => ({ x: s.mayUntil + skew, y: s.sureUntil - skew, w: s.order.quantity }));
  const taken = cornerSums(takenPoints, takenQueries, true);
  const back = cornerSums(backPoints, backQueries, false);
  let q = 0;
  return candidates.map((list) => {
    let best: ForSale = { bound: -Infinity, why: 'nothing could have set the stock' };
    for (const s of list) {
      const bound = s.stock - taken[q] + back[q];
      if (bound > best.bound)
        best = {
          bound,
          why: `${s.what}, less ${taken[q]} unit(s) surely sold after it, plus ${back[q]} that could have come back`,
        };
      q++;
    }
    return best;
  });
}

/** The product's stock sets that may have applied, and which of them (or the initial stock) an observation may follow. */
function startsOf(m: Model, productId: string) {
  const sets = m.byKind.setStock.filter((op) => op.productId === productId && verdictOf(op) !== 'refused');
  const starts: Start[] = sets.map((op) => ({
    stock: op.stock,
    fromMs: op.invokeMs,
    toMs: verdictOf(op) === 'ok' ? op.completeMs : Infinity,
    what: `stock set to ${op.stock} [${op.invokeMs}..${op.completeMs}]`,
  }));
  const answered = starts.filter((s) => s.toMs !== Infinity).sort((a, b) => a.fromMs - b.fromMs);
  const unanswered = starts.filter((s) => s.toMs === Infinity).sort((a, b) => a.fromMs - b.fromMs);
  const byEnd = [...answered].sort((a, b) => a.toMs - b.toMs);
  // latestSure[k]: the latest send among the k sets answered first; a set that surely applied after another ends its reign.
  const latestSure = [-Infinity];
  for (const s of byEnd) latestSure.push(Math.max(latestSure[latestSure.length - 1], s.fromMs));
  const longest = answered.reduce((max, s) => Math.max(max, s.toMs - s.fromMs), 0);
  return {
    possibleAt(o: Observed, initial: Start): Start[] {
      const followed = latestSure[countBefore(byEnd, (s) => s.toMs < o.fromMs)];
      const list = followed === -Infinity ? [initial] : [];
      for (
        let i = countBefore(answered, (s) => s.fromMs < followed - longest);
        i < answered.length && answered[i].fromMs <= o.toMs;
        i++
      )
        if (answered[i].toMs >= followed) list.push(answered[i]);
      for (let i = 0; i < unanswered.length && unanswered[i].fromMs <= o.toMs; i++) list.push(unanswered[i]);
      return list;
    },
  };
}

/** How many leading elements of a sorted list satisfy `before` (a prefix predicate), by binary search. */
function countBefore<T>(sorted: T[], before: (x: T) => boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(sorted[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
