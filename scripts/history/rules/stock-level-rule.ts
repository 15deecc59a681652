import { verdictOf } from '../format';
import { Model } from '../model';
import { OrderSpan } from '../order-spans';
import { RuleResult, RuleTally } from '../tally';
import { Cause, prefixSum, stockReads } from './stock-read-rule';

/**
 * Until an admin stock set could have landed, a read shows at most the initial stock, less the
 * units of every order an answer had already shown before the read was sent (its purchase had
 * committed), plus the units of the orders that could have ended by the time the read was
 * answered. This is what makes each unit's return count once: a read after many rises still has
 * to fit the orders that exist, however the reads in between went.
 */
export function stockReadsWithinSupply(m: Model, spans: OrderSpan[]): RuleResult {
  const tally = new RuleTally('no stock read shows more than was left for sale');
  const skew = m.options.skewMs;
  for (const product of m.products.values()) {
    const id = product.productId;
    const firstSet = m.ops.reduce((min, op) => (op.op === 'setStock' && op.productId === id && verdictOf(op) !== 'refused' ? Math.min(min, op.invokeMs) : min), Infinity);
    const supply = product.initialStock + (m.returnedBefore.get(id) ?? 0);
    const shown: Cause[] = [];
    for (const o of m.orders) {
      const at = m.shownByMs.get(o.id);
      if (o.productId === id && at !== undefined) shown.push({ fromMs: at, toMs: Infinity, units: o.quantity });
    }
    const ended: Cause[] = spans.filter((s) => s.order.productId === id && s.sureUntil !== Infinity).map((s) => ({ fromMs: s.sureUntil - skew, toMs: Infinity, units: s.order.quantity }));
    const shownBy = prefixSum(shown, 'fromMs');
    const endedBy = prefixSum(ended, 'fromMs');
    for (const r of stockReads(m, id)) {
      if (r.completeMs >= firstSet) continue;
      const taken = shownBy(r.invokeMs - m.options.staleReadMs);
      const back = endedBy(r.completeMs + 1);
      const most = supply - taken + back;
      tally.judge(r.stock > most ? `product ${id}: read ${r.stock} at [${r.invokeMs}..${r.completeMs}], at most ${most} (initial ${supply}, ${taken} unit(s) shown sold before it, ${back} that could have come back)` : undefined);
    }
  }
  return tally.result();
}
