import { SetStockRecord, verdictOf } from '../format';
import { isLive, Model } from '../model';
import { RuleResult, RuleTally } from '../tally';

/**
 * Units in live orders never exceed what the writer supplied. Without stock changes that is the
 * initial stock. `PUT .../stock` sets the units still for sale, so after the last one that took
 * effect (set to S) at most S + the units of orders that existed then can be live: any of those
 * may still be live, every other unit came from S. An unknown answer may or may not have taken
 * effect, so every candidate for "the last set" is tried and the largest bound is used.
 */
export function noOversell(m: Model): RuleResult {
  const tally = new RuleTally('units sold <= initial stock + admin stock changes');
  const skew = m.options.skewMs;
  for (const product of m.products.values()) {
    const orders = m.orders.filter((o) => o.productId === product.productId);
    const live = orders.reduce((sum, o) => sum + (isLive(o) ? o.quantity : 0), 0);
    const sets = m.ops.filter((op): op is SetStockRecord => op.op === 'setStock' && op.productId === product.productId && verdictOf(op) !== 'refused');
    const surelyApplied = sets.filter((s) => verdictOf(s) === 'ok');
    const lastSure = surelyApplied.reduce<SetStockRecord | undefined>((last, s) => (!last || s.invokeMs > last.invokeMs ? s : last), undefined);
    // Any set that may be linearized after the last sure one could be the last of all.
    const candidates = sets.filter((s) => !lastSure || s === lastSure || latestEffectAfter(s, lastSure));
    let bound = lastSure ? -Infinity : product.initialStock;
    let why = lastSure ? '' : `initial stock ${product.initialStock}`;
    for (const set of candidates) {
      const before = orders.filter((o) => o.createdAtMs <= (verdictOf(set) === 'unknown' ? Infinity : set.completeMs) + skew).reduce((sum, o) => sum + o.quantity, 0);
      if (set.stock + before > bound) {
        bound = set.stock + before;
        why = `stock set to ${set.stock} at ${set.invokeMs} + ${before} unit(s) ordered before`;
      }
    }
    tally.judge(live > bound ? `product ${product.productId}: ${live} unit(s) in live orders, at most ${bound} (${why})` : undefined);
  }
  return tally.result();
}

const latestEffectAfter = (set: SetStockRecord, sure: SetStockRecord): boolean => verdictOf(set) === 'unknown' || set.completeMs > sure.invokeMs;

/** Per user and product, live units <= the product's perUserLimit. */
export function perUserLimit(m: Model): RuleResult {
  const tally = new RuleTally('per-user limit over live orders');
  const units = new Map<string, number>();
  for (const o of m.orders) if (isLive(o)) units.set(`${o.userId}|${o.productId}`, (units.get(`${o.userId}|${o.productId}`) ?? 0) + o.quantity);
  for (const [slot, n] of units) {
    const cut = slot.lastIndexOf('|');
    const [user, productId] = [slot.slice(0, cut), slot.slice(cut + 1)];
    const limit = m.products.get(productId)?.perUserLimit ?? Infinity;
    tally.judge(n > limit ? `${user} holds ${n} live unit(s) of product ${productId}, limit ${limit}` : undefined);
  }
  return tally.result();
}
