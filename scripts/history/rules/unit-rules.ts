import { Model } from '../model';
import { OrderSpan, orderSpans } from '../order-spans';
import { mergeInstants, StepLevels } from '../step-levels';
import { SupplyBound } from '../supply';
import { RuleResult, RuleTally } from '../tally';

const iso = (t: number): string => new Date(t).toISOString();
const names = (spans: OrderSpan[], t: number): string => {
  const held = spans.filter((s) => s.sureFrom <= t && t < s.sureUntil);
  return `${held
    .slice(0, 8)
    .map((s) => `${s.order.id} (${s.order.status})`)
    .join(', ')}${held.length > 8 ? `, … ${held.length} orders` : ''}`;
};

/**
 * At no instant do the units surely held by orders exceed the most units the product can have had
 * then (its initial stock and the admin sets that could have landed by then; see SupplyBound).
 * An order that later expired or was cancelled still counts for as long as it surely held its
 * units (see OrderSpan). Judged at every instant the held units or the bound change; the first
 * instant that breaks it is reported with the orders held then.
 */
export function noOversell(m: Model, spans: OrderSpan[] = orderSpans(m)): RuleResult {
  const tally = new RuleTally('units sold <= initial stock + admin stock changes');
  for (const product of m.products.values()) {
    const mine = spans.filter((s) => s.order.productId === product.productId);
    const held = new StepLevels(mine.map((s) => ({ from: s.sureFrom, until: s.sureUntil, units: s.order.quantity })));
    const maybe = () =>
      new StepLevels(mine.map((s) => ({ from: s.mayFrom, until: s.mayUntil, units: s.order.quantity })));
    const supply = new SupplyBound(
      m,
      product.productId,
      product.initialStock + (m.returnedBefore.get(product.productId) ?? 0),
      maybe,
    );
    const instants = mergeInstants(held.times, supply.breakpoints());
    let problem: string | undefined;
    for (const t of instants) {
      const units = held.at(t);
      if (units <= 0) continue;
      const { bound, why } = supply.at(t);
      if (units > bound) {
        problem = `product ${product.productId}: ${units} unit(s) held at ${iso(t)}, at most ${bound} (${why}); orders ${names(mine, t)}`;
        break;
      }
    }
    tally.judge(problem);
  }
  return tally.result();
}

/** Per user and product, at no instant do the units the user surely holds exceed the product's perUserLimit. */
export function perUserLimit(m: Model, spans: OrderSpan[] = orderSpans(m)): RuleResult {
  const tally = new RuleTally('per-user limit over live orders');
  for (const product of m.products.values()) {
    const { productId, perUserLimit: limit } = product;
    const mine = spans.filter((s) => s.order.productId === productId);
    // Most users never hold more than the limit even in total: only their orders need a sweep.
    const totals = new Map<string, number>();
    for (const { order } of mine) totals.set(order.userId, (totals.get(order.userId) ?? 0) + order.quantity);
    const over = new Map<string, OrderSpan[]>();
    for (const s of mine) {
      if (!((totals.get(s.order.userId) as number) > limit)) continue;
      const list = over.get(s.order.userId);
      if (list) list.push(s);
      else over.set(s.order.userId, [s]);
    }
    for (let i = over.size; i < totals.size; i++) tally.judge();
    for (const [userId, list] of over) {
      const held = new StepLevels(list.map((s) => ({ from: s.sureFrom, until: s.sureUntil, units: s.order.quantity })));
      const i = held.levels.findIndex((level) => level > limit);
      tally.judge(
        i < 0
          ? undefined
          : `${userId} held ${held.levels[i]} unit(s) of product ${productId} at ${iso(held.times[i])}, limit ${limit}; orders ${names(list, held.times[i])}`,
      );
    }
  }
  return tally.result();
}
